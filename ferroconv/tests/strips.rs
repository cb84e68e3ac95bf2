//! Strips: the plan fits the budget and covers every output row once, and convolving strip by strip
//! on the CPU gives exactly the whole-image result for every border, channel count and sample type.

use ferroconv::engine::strips;
use ferroconv::model::image::Samples;
use ferroconv::plan::spread;
use ferroconv::{Border, DType, Filter, Filter2D, Image, Problem};

fn problem(image: &Image, filter: &Filter, border: Border) -> Problem {
    Problem::of(image, filter, border, false)
}

#[test]
fn plan_covers_every_row_once_and_fits_the_budget() {
    let image = Image::random(100, 97, 3, DType::U16, 1).unwrap();
    let filter = Filter::random(7, 2).unwrap();
    for border in Border::checked(DType::U16) {
        for separable in [false, true] {
            let p = problem(&image, &filter, border);
            let (_, oh) = p.output_size().unwrap();
            let whole = strips::device_bytes(&p, separable).unwrap();
            assert_eq!(
                strips::plan(&p, separable, whole).unwrap(),
                strips::split(oh, 1, 3, border)
            );
            for budget in [whole / 2, whole / 4, whole / 8] {
                let plan = strips::plan(&p, separable, budget).unwrap();
                assert!(plan.len() > 1, "{border:?} {budget}: {plan:?}");
                assert_eq!(plan.first().unwrap().rows.start, 0);
                assert_eq!(plan.last().unwrap().rows.end, oh);
                for pair in plan.windows(2) {
                    assert_eq!(pair[0].rows.end, pair[1].rows.start, "{plan:?}");
                }
                for s in &plan {
                    let strip = strips::strip_input(&image, border, s).unwrap();
                    let sp = Problem {
                        height: strip.height(),
                        ..p.clone()
                    };
                    assert!(strips::device_bytes(&sp, separable).unwrap() <= budget);
                }
            }
        }
    }
}

#[test]
fn a_budget_below_one_row_is_a_clear_error() {
    let image = Image::random(1000, 50, 1, DType::F32, 1).unwrap();
    let filter = Filter::random(31, 2).unwrap();
    let e = strips::plan(&problem(&image, &filter, Border::Zero), false, 1000).unwrap_err();
    assert!(e.to_string().contains("a strip of one output row needs"), "{e}");
}

#[test]
fn strips_give_the_whole_image_result_bit_for_bit_on_the_cpu() {
    let shapes = [(37, 41), (5, 23), (64, 3)];
    let mut checked = 0;
    for (n, &(w, h)) in shapes.iter().enumerate() {
        for channels in [1, 3, 4] {
            for dtype in DType::ALL {
                let image = Image::random(w, h, channels, dtype, 10 + n as u64).unwrap();
                for k in [1, 3, 7] {
                    let filter = Filter::random_normalized(k, k as u64).unwrap();
                    let r = filter.radius();
                    for border in Border::checked(dtype) {
                        let Ok(whole) = ferroconv::engine::cpu::sequential(&image, &filter, border, false)
                        else {
                            assert_eq!(border, Border::Valid);
                            continue;
                        };
                        let oh = whole.height();
                        for height in [1, 2, 5, oh] {
                            let plan = strips::split(oh, oh.div_ceil(height), r, border);
                            let got = strips::run(&image, r, border, &plan, |strip| {
                                ferroconv::engine::cpu::sequential(strip, &filter, border, false)
                            })
                            .unwrap();
                            assert_eq!(
                                got, whole,
                                "{w}x{h} c={channels} {dtype:?} k={k} {border:?} strips of {height}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn planned_strips_match_the_whole_image_for_a_tall_image() {
    let image = Image::random(64, 300, 1, DType::U8, 3).unwrap();
    let filter = Filter::builtin(ferroconv::model::filter::FilterKind::Gaussian, 9, None).unwrap();
    for border in Border::checked(DType::U8) {
        let p = problem(&image, &filter, border);
        let plan = strips::plan(&p, false, strips::device_bytes(&p, false).unwrap() / 7).unwrap();
        assert!(plan.len() >= 7, "{plan:?}");
        let whole = ferroconv::engine::cpu::parallel(&image, &filter, border, false).unwrap();
        let got = strips::run(&image, 4, border, &plan, |s| {
            ferroconv::engine::cpu::parallel(s, &filter, border, false)
        })
        .unwrap();
        assert_eq!(got, whole, "{border:?}");
    }
}

/// Strips dealt to several workers (as to several GPUs) on their own threads, each reading its
/// rows of the image in place and writing its rows of the output, give the whole-image result
/// bit for bit; each worker gets the same strips image after image, and a failing strip fails
/// the image.
#[test]
fn strips_spread_over_workers_give_the_whole_image_result() {
    for (dtype, channels) in [(DType::F32, 3), (DType::U8, 1), (DType::U16, 4)] {
        let image = Image::random(45, 61, channels, dtype, 5).unwrap();
        let filter = Filter::random(5, 9).unwrap();
        for border in Border::checked(dtype) {
            let whole = ferroconv::engine::cpu::sequential(&image, &filter, border, false).unwrap();
            let oh = whole.height();
            for (count, workers) in [(1, 2), (2, 2), (7, 2), (7, 3), (oh, 4)] {
                let plan = strips::split(oh, count, 2, border);
                let mut seen: Vec<Vec<usize>> = vec![Vec::new(); workers];
                for _ in 0..2 {
                    let mut ws: Vec<(Filter2D, Vec<usize>)> = (0..workers)
                        .map(|_| (Filter2D::cpu(&filter, border), Vec::new()))
                        .collect();
                    let got = spread::run(&image, 2, border, &plan, &mut ws, |(plan, log), band| {
                        log.push(band.rows().start);
                        band.run(&image, plan)
                    })
                    .unwrap();
                    assert_eq!(got, whole, "{border:?} {count} strips over {workers}");
                    for (w, (_, log)) in ws.into_iter().enumerate() {
                        let expected = (w..plan.len()).step_by(workers).count();
                        assert_eq!(log.len(), expected, "worker {w}");
                        if !seen[w].is_empty() {
                            assert_eq!(seen[w], log, "worker {w} got other strips the second time");
                        }
                        seen[w] = log;
                    }
                }
            }
            let plan = strips::split(oh, 4, 2, border);
            let mut ws: Vec<_> = (0..2).map(|_| Filter2D::cpu(&filter, border)).collect();
            let e = spread::run(&image, 2, border, &plan, &mut ws, |plan, band| {
                if band.rows().start > 0 {
                    Err(ferroconv::Error::InvalidRequest("a GPU failed".into()))
                } else {
                    band.run(&image, plan)
                }
            })
            .unwrap_err();
            assert!(e.to_string().contains("a GPU failed"), "{e}");
        }
    }
}

#[test]
fn strips_read_into_earlier_samples_equal_fresh_ones() {
    let image = Image::random(23, 19, 3, DType::U16, 5).unwrap();
    let row_bytes = 23 * 3 * 2;
    let src = image.samples().as_bytes();
    for border in Border::checked(DType::U16) {
        for strip in strips::split(19, 4, 6, border) {
            let want = strips::strip_input(&image, border, &strip).unwrap();
            let len = want.samples().len();
            // A marked buffer of the strip's length (written over), and one of another length
            // or type (not taken).
            for reuse in [
                Samples::filled(DType::U16, len),
                Samples::filled(DType::U16, len + 3),
                Samples::filled(DType::U8, len),
            ] {
                let got =
                    strips::strip_of_rows((23, 19, 3, DType::U16), border, &strip, Some(reuse), |r, dst| {
                        dst.copy_from_slice(&src[r.start * row_bytes..r.end * row_bytes]);
                        Ok::<(), ()>(())
                    })
                    .unwrap();
                assert!(got == want, "{border:?} {strip:?}");
            }
        }
    }
}
