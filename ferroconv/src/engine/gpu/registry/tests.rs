//! The registry's checks: entry names, launch shapes, the order of the variants.

use super::*;

/// The entry a `blocked-4x4` pass launches: interleaved for RGB and RGBA rows of whole vectors up to
/// the interleaved radius, else the one-channel-per-block entry of the radius.
#[test]
fn blocked_passes_pick_the_interleaved_entry_where_rows_are_whole_vectors() {
    let pass = &Variant::Blocked4x2.spec().passes[0];
    let max = Variant::Blocked4x2.spec().entry_radius();
    let names = pass.entry_names(Some("f32"), max);
    let entry = |width: u32, channels: u32, radius: u32, offset: u32| {
        let g = Geometry {
            in_width: width,
            channels,
            radius,
            offset,
            ..Geometry::default()
        };
        names[pass.function_index(&g, max)].as_str()
    };
    assert_eq!(entry(64, 1, 2, 0), "conv_blocked_4x2_f32_r2");
    assert_eq!(entry(64, 3, 2, 0), "conv_blocked_4x2_c3_f32_r2");
    assert_eq!(entry(63, 3, 2, 0), "conv_blocked_4x2_f32_r2");
    assert_eq!(entry(63, 4, 0, 0), "conv_blocked_4x2_c4_f32_r0");
    assert_eq!(entry(64, 4, 4, 0), "conv_blocked_4x2_c4_f32_r4");
    assert_eq!(entry(64, 4, 5, 0), "conv_blocked_4x2_f32_r5");
    assert_eq!(entry(64, 3, 1, 1), "conv_blocked_4x2_f32_r1");
    assert_eq!(entry(64, 4, 1, 1), "conv_blocked_4x2_c4_f32_r1");
    assert_eq!(entry(64, 2, 1, 0), "conv_blocked_4x2_f32_r1");
    let naive = &Variant::Naive.spec().passes[0];
    assert_eq!(naive.entry_names(Some("u8"), max), ["conv_naive_u8"]);
    // 300 RGB pixels are 900 samples: 8 blocks of 128 along x, with the RGB tile's halo of 4
    // samples each side; the same image one channel per block has 3 blocks of 128 pixels per
    // channel.
    let rgb = Geometry {
        in_width: 300,
        out_width: 300,
        out_height: 16,
        channels: 3,
        radius: 1,
        ..Geometry::default()
    };
    let config = (pass.config)(&rgb);
    assert_eq!(config.grid, (8, 1, 1));
    assert_eq!(config.shared_bytes, blocked::shared_bytes(1, 2, 3));
    let config = (pass.config)(&Geometry {
        in_width: 301,
        out_width: 301,
        ..rgb
    });
    assert_eq!(config.grid, (9, 1, 1));
    assert_eq!(config.shared_bytes, blocked::shared_bytes(1, 2, 1));
}

/// A `tensor-u8` pass launches the interleaved entry for RGB and RGBA at any width, one block per
/// tile covering every channel; so does `tensor-f32` (128 × 32 tiles) up to radius 12, and one
/// block per channel of a tile beyond.
#[test]
fn tensor_passes_pick_the_interleaved_entry_for_colour() {
    let pass = &Variant::TensorU8.spec().passes[0];
    let max = Variant::TensorU8.spec().entry_radius();
    let names = pass.entry_names(None, max);
    let g = Geometry {
        in_width: 301,
        out_width: 301,
        out_height: 65,
        channels: 3,
        radius: 2,
        ..Geometry::default()
    };
    assert_eq!(names[pass.function_index(&g, max)], "conv_tensor_u8_c3_r2");
    let rgba = Geometry { channels: 4, ..g };
    assert_eq!(names[pass.function_index(&rgba, max)], "conv_tensor_u8_c4_r2");
    let gray = Geometry { channels: 1, ..g };
    assert_eq!(names[pass.function_index(&gray, max)], "conv_tensor_u8_r2");
    let config = (pass.config)(&g);
    assert_eq!(config.grid, (3, 2, 1));
    assert_eq!(config.shared_bytes, tensor_u8::shared_bytes(2, 3));
    // `tensor-f32`: the interleaved entries for RGB and RGBA up to its largest radius, one block
    // per channel of a 128 × 64 tile there.
    let split = &Variant::TensorF32.spec().passes[0];
    let max = Variant::TensorF32.spec().entry_radius();
    let names = split.entry_names(None, max);
    let rgb = Geometry { radius: 15, ..g };
    assert_eq!(names[split.function_index(&rgb, max)], "conv_tensor_f32_c3_r15");
    assert_eq!((split.config)(&rgb).grid, (9, 2, 1));
    let max_shared = tensor_f32::COLOUR_MAX_RADIUS;
    let config = (split.config)(&Geometry {
        radius: max_shared,
        ..rgb
    });
    assert_eq!((config.grid, config.block), ((3, 3, 1), (32, 12)));
    assert_eq!(config.shared_bytes, tensor_f32::shared_bytes(max_shared, 3));
    let gray = Geometry { channels: 1, ..rgb };
    assert_eq!(names[split.function_index(&gray, max)], "conv_tensor_f32_r15");
    assert_eq!((split.config)(&gray).grid, (3, 2, 1));
}

#[test]
fn the_registry_describes_every_variant_once_in_order() {
    let listed: Vec<Variant> = REGISTRY.iter().map(|s| s.variant).collect();
    assert_eq!(listed, Variant::ALL);
    for v in Variant::ALL {
        assert_eq!(v.spec().variant, v);
        assert_eq!(Variant::parse(v.name()), Some(v));
    }
    assert_eq!(Variant::parse("fast-4x2"), Some(Variant::Blocked4x2));
    assert_eq!(Variant::parse("stream").map(Variant::name), Some("warp-rows"));
}

#[test]
fn launch_shapes_cover_the_output() {
    let g = Geometry {
        in_width: 1000,
        in_height: 700,
        out_width: 996,
        out_height: 696,
        channels: 3,
        radius: 2,
        ..Geometry::default()
    };
    for spec in &REGISTRY {
        let last = spec.passes.last().expect("a pass");
        assert_eq!(last.writes, Buffer::Output, "{}", spec.name);
        assert_eq!(spec.passes[0].reads, Buffer::Input, "{}", spec.name);
        for pass in spec.passes {
            let c = (pass.config)(&g);
            // Every channel in one block (interleaved entries), one block plane per channel,
            // or the channels of a tile side by side in x.
            let covered = if pass.interleaved.is_some_and(|i| (i.applies)(&g)) {
                c.grid.2 == 1
            } else if c.grid.2 == 1 {
                c.grid.0 % 3 == 0
            } else {
                c.grid.2 == 3
            };
            assert!(covered, "{}: {:?}", spec.name, c.grid);
            assert!(c.block.0 * c.block.1 <= 1024, "{}", spec.name);
            // 48 KiB without opting in; `tensor-f32`'s colour blocks hold three channels'
            // planes, which the launcher opts in to (a block may have up to 227 KiB).
            let shared_limit = if spec.name.starts_with("tensor-f32") {
                227 << 10
            } else {
                48 << 10
            };
            assert!(c.shared_bytes <= shared_limit, "{}", spec.name);
        }
    }
}

/// Every variant's own test sizes are runnable cases of what it runs: non-empty lists, images of
/// at least one pixel, channel counts the kernels take, filters of the radii it has (lines only
/// where it runs only lines); a variant whose tests are only its own has some.
#[test]
fn the_registry_test_sizes_are_cases_the_variant_runs() {
    for spec in &REGISTRY {
        assert!(!spec.tests_only || !spec.tests.is_empty(), "{}", spec.name);
        for t in spec.tests {
            assert!(
                !t.sizes.is_empty() && !t.filters.is_empty() && !t.channels.is_empty(),
                "{}",
                spec.name
            );
            assert!(t.sizes.iter().all(|&(w, h)| w > 0 && h > 0), "{}", spec.name);
            assert!(t.channels.iter().all(|c| [1, 3, 4].contains(c)), "{}", spec.name);
            for &(rows, cols) in t.filters {
                let radius = rows.max(cols) / 2;
                assert!(
                    rows > 0 && cols > 0 && (spec.min_radius..=spec.max_radius).contains(&radius),
                    "{}: {rows}x{cols}",
                    spec.name
                );
                assert!(
                    !spec.lines_only || rows == 1 || cols == 1,
                    "{}: {rows}x{cols}",
                    spec.name
                );
            }
        }
    }
}
