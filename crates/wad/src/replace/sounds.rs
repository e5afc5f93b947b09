//! `replace --sound`: WAV files read ([`crate::wav`]) and encoded into SMPC entries.

use std::path::{Path, PathBuf};

use super::{LevelProblem, ReplaceError, ReplaceReport};
use crate::level::Level;

/// Parse a `--sound` ID: `3` or `smpc_003`.
pub fn sound_id(id: &str) -> Option<usize> {
    id.strip_prefix("smpc_")
        .unwrap_or(id)
        .trim_end_matches(".wav")
        .parse()
        .ok()
}

/// Read a PCM WAV as the mono 16-bit samples a WAD sound holds: `(samples, rate, note)`.
///
/// The file must be a regular file of at most [`crate::wav::MAX_WAV_SIZE`] bytes; its RIFF
/// chunks are walked and its format checked first ([`crate::wav::check`]: a sample rate,
/// channel count or bit depth the game cannot play is refused, naming the value, the chunk and
/// its offset). Mono 16-bit integer PCM is taken as it is (`note` is `None`); anything else is
/// converted ([`crate::wav::mono16`]) and `note` says from what. The sample rate is kept (the
/// CVG header takes the WAV's).
///
/// # Errors
/// [`ReplaceError::Io`] when the file cannot be read (or is no regular file, or too large);
/// [`ReplaceError::Wav`] for a malformed or unplayable WAV.
pub fn read_wav(path: &Path) -> Result<(Vec<i16>, u32, Option<String>), ReplaceError> {
    let bytes =
        levelgeom_binary::read_regular(path, crate::wav::MAX_WAV_SIZE).map_err(|source| {
            ReplaceError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let bad = |source| ReplaceError::Wav {
        file: path.to_path_buf(),
        source,
    };
    let f = crate::wav::check(&bytes).map_err(bad)?;
    let samples = crate::wav::mono16(&bytes, &f).map_err(bad)?;
    let plain = f.channels == 1 && f.bits == 16 && !f.float;
    let note = (!plain).then(|| {
        format!(
            "{}: {} channel(s), {}-bit {} at {} Hz converted to mono 16-bit PCM{}",
            path.display(),
            f.channels,
            f.bits,
            if f.float { "float" } else { "integer" },
            f.sample_rate,
            if f.channels > 1 {
                " (channels mixed down to their mean)"
            } else {
                ""
            }
        )
    });
    Ok((samples, f.sample_rate, note))
}

/// Put each `(SMPC index, WAV file)` into the level's SMPC chunk (see the module docs of
/// [`super`]), noting in `report` which changed.
pub(super) fn replace(
    level: &mut Level,
    sounds: &[(usize, PathBuf)],
    report: &mut ReplaceReport,
    lacks: impl Fn(LevelProblem) -> ReplaceError,
) -> Result<(), ReplaceError> {
    let smpc = level
        .smpc_mut()
        .ok_or_else(|| lacks(LevelProblem::NoSmpc))?;
    for (id, wav) in sounds {
        let count = smpc.sounds.len();
        let snd = smpc
            .sounds
            .get_mut(*id)
            .ok_or_else(|| lacks(LevelProblem::NoSuchSound { id: *id, count }))?;
        let Some(h) = snd.header.as_mut() else {
            return Err(lacks(LevelProblem::NoCvgHeader { id: *id }));
        };
        let (samples, rate, note) = read_wav(wav)?;
        report.notes.extend(note);
        if samples == crate::adpcm::decode(&snd.adpcm) {
            // the same sound: its ADPCM stays (only a new rate is taken)
            if rate == crate::extract::wav_rate(h.sample_rate) {
                report.sounds_unchanged.push(*id);
            } else {
                h.sample_rate = rate;
                report.sounds_changed.push(*id);
            }
            continue;
        }
        let flags = crate::adpcm::BlockFlags::of(&snd.adpcm);
        let adpcm = crate::adpcm::encode(&samples, &flags);
        h.audio_bytes = u32::try_from(adpcm.len())
            .map_err(|_| ReplaceError::WavTooLong { file: wav.clone() })?;
        h.sample_rate = rate;
        snd.adpcm = adpcm;
        report.sounds_changed.push(*id);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sound_ids() {
        assert_eq!(sound_id("3"), Some(3));
        assert_eq!(sound_id("smpc_012"), Some(12));
        assert_eq!(sound_id("smpc_001.wav"), Some(1));
        assert_eq!(sound_id("x"), None);
    }
}
