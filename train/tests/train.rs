//! The trainer's checks, for every network architecture: the hand-written
//! gradient against finite differences, the loss falling on a small
//! synthetic task, and the exported network agreeing with the float one
//! within the quantisation bound.

mod common;

use engine::nnue::Network;
use engine::nnue::features::Arch;
use rand_pcg::Pcg64Mcg;
use train::model::{FloatNetwork, Pass};
use train::{Config, Dataset, train};

use common::synthetic;

#[test]
fn validation_never_holds_the_mirror_of_a_training_position() {
    let (_, positions) = synthetic(Arch::Squares, 400, 9, None);
    let mut data = Dataset::new(Arch::Squares);
    for (game, pos) in (0u32..).zip(&positions) {
        data.push(pos, 0, 0, game, false);
        data.push(pos, 0, 0, game, true);
    }
    let cfg = Config {
        validation: 0.2,
        ..Config::default()
    };
    let (val, train_set) = train::trainer::split(&data, &cfg);
    assert_eq!(val.len() + train_set.len(), 800);
    assert!(
        (100..220).contains(&val.len()),
        "{} validation samples",
        val.len()
    );
    let val_groups: std::collections::HashSet<u32> = val.iter().map(|&i| data.group(i)).collect();
    assert!(
        train_set
            .iter()
            .all(|&i| !val_groups.contains(&data.group(i)))
    );
    assert!(val.iter().all(|&i| data.group(i) == data.group(i ^ 1)));
}

#[test]
fn gradient_matches_finite_differences() {
    for arch in Arch::ALL {
        let (data, _) = synthetic(arch, 4, 3, None);
        let mut rng = Pcg64Mcg::new(11);
        let mut net = FloatNetwork::random(arch, &mut rng);
        // Larger output weights make every path visible in the gradient.
        for w in net
            .out
            .iter_mut()
            .flatten()
            .flat_map(|half| half.iter_mut())
        {
            *w *= 8.0;
        }
        let s = data.get(2);
        let mut grad = FloatNetwork::zeros(arch);
        let mut pass = Pass::default();
        net.forward(&s, &mut pass);
        net.backward(&s, &mut pass, 1.0, &mut grad);
        let row = usize::from(s.us[0]);
        let eps = 1e-3f32;
        let mut checked = 0;
        for j in 0..engine::nnue::features::HIDDEN {
            let analytic = grad.ft[row][j];
            let mut plus = net.clone();
            plus.ft[row][j] += eps;
            let mut minus = net.clone();
            minus.ft[row][j] -= eps;
            let numeric = (plus.forward(&s, &mut Pass::default())
                - minus.forward(&s, &mut Pass::default()))
                / (2.0 * eps);
            assert!(
                (analytic - numeric).abs() < 2e-2 * (1.0 + numeric.abs()),
                "{arch} unit {j}: analytic {analytic}, numeric {numeric}"
            );
            checked += usize::from(analytic != 0.0);
        }
        assert!(checked > 10, "too few active units to check ({checked})");
        // Each output bucket's bias: the sample's has the gradient, the
        // others none, and changing them changes nothing.
        let k = usize::from(s.bucket);
        for b in 0..arch.output_buckets() {
            let mut plus = net.clone();
            plus.out_bias[b] += eps;
            let numeric = (plus.forward(&s, &mut Pass::default())
                - net.forward(&s, &mut Pass::default()))
                / eps;
            assert!(
                (grad.out_bias[b] - numeric).abs() < 1e-2,
                "{arch} bucket {b}"
            );
            if b != k {
                assert_eq!(grad.out_bias[b], 0.0);
                assert!(
                    grad.out[b]
                        .iter()
                        .all(|half| half.iter().all(|&g| g == 0.0))
                );
            }
        }
        assert!(grad.out_bias[k] > 0.5);
    }
}

#[test]
fn loss_falls_and_export_matches_the_float_model() {
    for arch in Arch::ALL {
        let (data, positions) = synthetic(arch, 3000, 5, None);
        let cfg = Config {
            epochs: 8,
            batch_size: 256,
            lr: 0.003,
            lr_step: 6,
            lr_gamma: 0.3,
            lambda: 0.0,
            eval_scale: 400.0,
            validation: 0.1,
            seed: 1,
            threads: 2,
            ..Config::default()
        };
        let mut reports = Vec::new();
        let net = train(&data, &cfg, |r| reports.push(*r), |_, _| {}).expect("trains");
        assert_eq!(net.arch, arch);
        assert_eq!(reports.len(), 9);
        let first = reports[0].validation_loss;
        let last = reports[8].validation_loss;
        assert!(
            last < first * 0.5,
            "{arch}: validation loss {first} -> {last}"
        );

        // Same seed, same threads: the same network.
        let again = train(&data, &cfg, |_| {}, |_, _| {}).expect("trains");
        assert_eq!(again, net);

        // The engine's loader and evaluation (the incremental path's slow
        // twin) against the float model, within the proven bound.
        let quantised = Network::from_bytes(&net.quantise().to_bytes()).expect("loads");
        assert_eq!(quantised.arch(), arch);
        let mut worst = 0.0f32;
        let mut sum = 0.0f32;
        let mut worst_at = 0.0f32;
        let mut buckets = vec![0; arch.output_buckets()];
        for (i, pos) in positions.iter().enumerate() {
            let sample = data.get(i);
            assert_eq!(usize::from(sample.bucket), arch.output_bucket(pos));
            buckets[usize::from(sample.bucket)] += 1;
            let float_cp = net.evaluate_cp(&sample);
            let int_cp = quantised.evaluate(pos);
            assert_eq!(train::model::quantised_cp(&quantised, &sample), int_cp);
            #[allow(clippy::cast_precision_loss)]
            let err = (float_cp - int_cp as f32).abs();
            sum += err;
            let bound = net.quantisation_bound(&sample);
            assert!(
                err <= bound,
                "{arch}: error {err} cp above the bound {bound} cp"
            );
            if err > worst {
                worst = err;
                worst_at = float_cp;
            }
        }
        assert!(buckets.iter().all(|&n| n > 20), "{arch}: {buckets:?}");
        #[allow(clippy::cast_precision_loss)]
        let mean = sum / positions.len() as f32;
        println!(
            "{arch} quantisation error: largest {worst:.2} cp (at {worst_at:.0} cp), mean {mean:.2} cp"
        );
    }
}
