//! A process forked after the library ran (a worker pool's `fork`): the child's CPU work runs on
//! a thread pool of its own and gives the parent's result, never a hang; where the parent had
//! started CUDA, the child cannot open a GPU (`fork::FORKED`) and `Filter2D::auto` runs on the
//! CPU. Runs with and without a GPU.
#![cfg(target_os = "linux")]

use ferroconv::plan::{Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, Error, Filter, Gpu, fork};
use std::time::{Duration, Instant};

const W: usize = 523;
const H: usize = 517;

fn image() -> Vec<f32> {
    (0..W * H).map(|i| ((i * 7919) % 1009) as f32 / 1009.0).collect()
}

fn run(plan: &mut Filter2D, src: &[f32]) -> Vec<f32> {
    let mut dst = vec![f32::NAN; W * H];
    plan.run(
        &ImageView::new(src, W, H, 1).unwrap(),
        &mut ImageViewMut::new(&mut dst, W, H, 1).unwrap(),
    )
    .unwrap();
    dst
}

/// In the child: 0 when everything holds, else the number of the first check that failed.
fn child(filter: &Filter, src: &[f32], expected: &[f32], cuda_started: bool) -> i32 {
    let mut cpu = Filter2D::cpu(filter, Border::Reflect);
    if run(&mut cpu, src) != expected {
        return 1;
    }
    if fork::cuda_forked() != cuda_started {
        return 2;
    }
    if cuda_started {
        if !matches!(Gpu::new(), Err(Error::NoGpu(why)) if why == fork::FORKED) {
            return 3;
        }
        let Ok(mut auto) = Filter2D::auto(filter, Border::Reflect) else {
            return 4;
        };
        if auto.gpu().is_some() || run(&mut auto, src) != expected {
            return 5;
        }
    }
    0
}

/// Waits for `pid` up to `limit`; kills it and fails past that (a hang).
fn wait(pid: libc::pid_t, limit: Duration) -> i32 {
    let started = Instant::now();
    let mut status = 0;
    loop {
        // SAFETY: waits for our own child, writing its status into a live local.
        let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(done >= 0, "waitpid failed");
        if done == pid {
            assert!(libc::WIFEXITED(status), "the child died: status {status}");
            return libc::WEXITSTATUS(status);
        }
        if started.elapsed() > limit {
            // SAFETY: ends our own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("the forked child hung for {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_child_forked_after_the_library_ran_gets_the_parents_result() {
    let taps: Vec<f32> = (0..25).map(|i| (i % 7) as f32 / 75.0).collect();
    let filter = Filter::rect(5, 5, taps).unwrap();
    let src = image();
    // The parent's CPU work starts its threads; its GPU work (where there is one) starts CUDA.
    let expected = run(&mut Filter2D::cpu(&filter, Border::Reflect), &src);
    let mut auto = Filter2D::auto(&filter, Border::Reflect).unwrap();
    let on_gpu = run(&mut auto, &src);
    let cuda_started = auto.gpu().is_some();
    let worst = on_gpu
        .iter()
        .zip(&expected)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(worst < 1e-5, "GPU and CPU differ by {worst}");
    // SAFETY: the child runs only the library and leaves through `_exit`, never returning
    // into the test harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let code = child(&filter, &src, &expected, cuda_started);
        // SAFETY: ends the child without running the parent's exit handlers or destructors.
        unsafe { libc::_exit(code) };
    }
    assert_eq!(
        wait(pid, Duration::from_secs(60)),
        0,
        "check failed in the child (see `child`)"
    );
    // The parent's own plans still work after the fork.
    assert_eq!(run(&mut Filter2D::cpu(&filter, Border::Reflect), &src), expected);
}
