//! Fault injection for reliability tests: `CONV_INJECT_FAULT=STAGE:N` makes the `N`th image
//! (1-based, in input order) of a batch fail at `STAGE`, as a failed launch or copy would.
//!
//! Stages: `compute` (any engine, before the convolution starts), and on the GPU `upload`,
//! `launch` and `download` (the step itself is skipped and reported as failed).

use ferroconv::{Error, Result};

/// The environment variable that asks for a fault.
pub const ENV: &str = "CONV_INJECT_FAULT";

/// Where an injected fault strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Compute,
    Upload,
    Launch,
    Download,
}

impl Stage {
    const ALL: [Stage; 4] = [Stage::Compute, Stage::Upload, Stage::Launch, Stage::Download];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Compute => "compute",
            Stage::Upload => "upload",
            Stage::Launch => "launch",
            Stage::Download => "download",
        }
    }
}

/// A requested fault: `stage` of image number `image` (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injection {
    pub stage: Stage,
    pub image: usize,
}

impl Injection {
    /// Parses `STAGE:N`, e.g. `launch:3`.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = || {
            Error::Fault(format!(
                "{ENV}='{text}' is not STAGE:N (STAGE one of compute, upload, launch, download; N >= 1)"
            ))
        };
        let (stage, n) = text.trim().split_once(':').ok_or_else(bad)?;
        let stage = Stage::ALL
            .into_iter()
            .find(|s| s.name() == stage)
            .ok_or_else(bad)?;
        let image = n.parse::<usize>().ok().filter(|&n| n >= 1).ok_or_else(bad)?;
        Ok(Self { stage, image })
    }

    /// The injection [`ENV`] asks for, if it is set.
    pub fn from_env() -> Result<Option<Self>> {
        match std::env::var(ENV) {
            Ok(text) => Self::parse(&text).map(Some),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(Error::Fault(format!("{ENV} is not UTF-8"))),
        }
    }

    /// The stage that fails for image number `image` (1-based), if any.
    pub fn at(self, image: usize) -> Option<Stage> {
        (image == self.image).then_some(self.stage)
    }
}

/// Fails with an injected fault if `stage` is the one `armed` names; `Ok` otherwise.
pub fn strike(armed: Option<Stage>, stage: Stage) -> Result<()> {
    if armed == Some(stage) {
        return Err(Error::Fault(format!("injected {} fault ({ENV})", stage.name())));
    }
    Ok(())
}
