//! Runs the numbered examples of `ferroconv/examples/` as tests, so they keep working: on the GPU
//! where there is one, else on the CPU (the device example says there is no GPU and stops).

#[path = "../examples/03_batch.rs"]
mod batch;
#[path = "../examples/02_device_images.rs"]
mod device_images;
#[path = "../examples/01_host_images.rs"]
mod host_images;

#[test]
fn example_01_host_images() {
    host_images::main().unwrap();
}

#[test]
fn example_02_device_images() {
    device_images::main().unwrap();
}

#[test]
fn example_03_batch() {
    batch::main().unwrap();
}
