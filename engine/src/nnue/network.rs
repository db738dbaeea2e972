//! The quantised network and its file.
//!
//! File layout (all integers little-endian; `docs/nnue.md` §2 has the full
//! table):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `CHNNUE\r\n` |
//! | 8 | 4 | format version ([`Arch::version`]) |
//! | 12 | 4 | inputs per input bucket |
//! | 16 | 4 | input buckets |
//! | 20 | 4 | hidden width ([`HIDDEN`]) |
//! | 24 | 4 | activation (1 = squared clipped ReLU) |
//! | 28 | 4 | QA |
//! | 32 | 4 | QB |
//! | 36 | 4 | output scale |
//! | 40 | 4 | payload length in bytes |
//! | 44 | 4 | FNV-1a (32-bit) of the payload |
//! | 48 | … | payload |
//!
//! Payload: the first layer's weights as `i16[inputs][HIDDEN]` (row =
//! input), its biases `i16[HIDDEN]`, the output weights
//! `i16[output buckets][2][HIDDEN]` (side to move's half first), the output
//! biases `i32[output buckets]` (one in format 3: the version says how
//! many). The 256-wide formats 1 and 2 had the same layout; this build
//! refuses them, and the removed formats 4, 5 and 6, by their version.
//!
//! The loader reads the version, checks every field against that
//! version's architecture before it trusts any, never panics, and names
//! what was wrong in a [`NetworkError`]. It also checks that every output
//! weight lies in `±`[`MAX_OUTPUT_WEIGHT`], the bound that keeps the
//! output layer's integer arithmetic exact (see [`crate::nnue::simd`]).

use std::fmt;
use std::path::Path;

use super::features::{Arch, HIDDEN, RemovedFormat, squares};

/// The file's first 8 bytes.
pub const MAGIC: [u8; 8] = *b"CHNNUE\r\n";
/// Activation code: squared clipped ReLU, `clamp(x, 0, QA)²`.
pub const ACTIVATION_SCRELU: u32 = 1;
/// First-layer quantisation: a float weight `w` is stored as `round(w × QA)`.
pub const QA: i32 = 255;
/// Output-layer quantisation: `round(w × QB)`; the output bias is stored as
/// `round(b × QA × QB)`.
pub const QB: i32 = 64;
/// The float network's output times this is centipawns.
pub const SCALE: i32 = 400;
/// The largest output weight the loader accepts (in absolute value): with
/// activations of at most `QA`, `activation × weight` then fits an `i16`.
pub const MAX_OUTPUT_WEIGHT: i16 = 127;
/// Header size in bytes.
pub const HEADER_BYTES: usize = 48;

/// The header field of the hidden width, as the loader names it.
const HIDDEN_FIELD: &str = "hidden";

/// Payload size in bytes of a network of architecture `arch`.
pub const fn payload_bytes(arch: Arch) -> usize {
    let buckets = arch.output_buckets();
    2 * (arch.inputs() * HIDDEN + HIDDEN + buckets * 2 * HIDDEN) + 4 * buckets
}

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// The file does not exist.
    Missing(String),
    /// The file exists but could not be read.
    Io(String),
    /// Fewer bytes than the header or the payload needs.
    Truncated {
        /// Bytes needed.
        expected: usize,
        /// Bytes present.
        found: usize,
    },
    /// The first 8 bytes are not [`MAGIC`]: not a Chariot network.
    BadMagic,
    /// A format version this build does not read (it reads those of
    /// [`Arch::ALL`]).
    WrongVersion {
        /// The file's version.
        found: u32,
    },
    /// An architecture field differs from what the file's format version
    /// has in this build.
    WrongArchitecture {
        /// The file's format version.
        version: u32,
        /// The header field.
        field: &'static str,
        /// The file's value.
        found: u32,
        /// The value of this build's format.
        expected: u32,
    },
    /// The payload length (header field or actual) is not the
    /// architecture's, or (from [`Network::from_parts`]) a layer has the
    /// wrong number of rows.
    WrongSize {
        /// Bytes the architecture needs.
        expected: usize,
        /// Bytes the file declares or holds.
        found: usize,
    },
    /// The payload's checksum differs from the header's.
    BadChecksum {
        /// The header's checksum.
        stored: u32,
        /// The payload's.
        computed: u32,
    },
    /// An output weight outside `±MAX_OUTPUT_WEIGHT`.
    WeightOutOfRange {
        /// Its index in the output layer.
        index: usize,
        /// Its value.
        value: i16,
    },
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::Missing(p) => write!(f, "network file {p} not found"),
            NetworkError::Io(e) => write!(f, "cannot read the network file: {e}"),
            NetworkError::Truncated { expected, found } => {
                write!(f, "network file truncated: {found} bytes, need {expected}")
            }
            NetworkError::BadMagic => f.write_str("not a Chariot network file (bad magic)"),
            NetworkError::WrongVersion { found } => {
                let reads = Arch::ALL.map(|a| a.version().to_string());
                let (last, rest) = reads.split_last().expect("at least one architecture");
                let reads = match rest {
                    [] => format!("version {last}"),
                    _ => format!("versions {} and {last}", rest.join(", ")),
                };
                write!(
                    f,
                    "network format version {found}, this build reads {reads}"
                )?;
                match found {
                    1 | 2 => f.write_str(
                        " (versions 1 and 2 are the 256-wide networks of earlier builds)",
                    ),
                    _ => match RemovedFormat::of_version(*found) {
                        Some(r) => write!(f, " (version {found}, {}, never shipped)", r.short),
                        None => Ok(()),
                    },
                }
            }
            NetworkError::WrongArchitecture {
                version,
                field,
                found,
                expected,
            } => {
                write!(
                    f,
                    "network architecture mismatch: {field} is {found}, \
                     format version {version} needs {expected}"
                )?;
                if *field == HIDDEN_FIELD {
                    // The width is a constant of the build, so the remedy
                    // is another build, not another option.
                    write!(
                        f,
                        " (the hidden width is fixed when the engine is built: a network \
                         {found} wide needs a build of that width)"
                    )?;
                }
                Ok(())
            }
            NetworkError::WrongSize { expected, found } => write!(
                f,
                "network payload is {found} bytes, the architecture needs {expected}"
            ),
            NetworkError::BadChecksum { stored, computed } => write!(
                f,
                "network checksum mismatch: header {stored:08x}, payload {computed:08x}"
            ),
            NetworkError::WeightOutOfRange { index, value } => write!(
                f,
                "output weight {index} is {value}, outside ±{MAX_OUTPUT_WEIGHT}"
            ),
        }
    }
}

impl std::error::Error for NetworkError {}

/// FNV-1a, 32-bit: a checksum against truncation and bit rot, not against
/// tampering.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The quantised weights of the network.
///
/// Invariant: `ft_weights` has exactly `arch.inputs()` rows, there are
/// `arch.output_buckets()` output layers and biases, and every output
/// weight lies in `±`[`MAX_OUTPUT_WEIGHT`]; the loader and
/// [`Network::from_parts`] enforce all three.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    pub(crate) arch: Arch,
    pub(crate) ft_weights: Vec<[i16; HIDDEN]>,
    pub(crate) ft_bias: [i16; HIDDEN],
    /// By output bucket: the side to move's half, the other's.
    pub(crate) out_weights: Vec<[[i16; HIDDEN]; 2]>,
    pub(crate) out_bias: Vec<i32>,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network")
            .field("arch", &self.arch)
            .field("inputs", &self.ft_weights.len())
            .field("hidden", &HIDDEN)
            .field("output buckets", &self.out_weights.len())
            .field("checksum", &format_args!("{:08x}", self.checksum()))
            .finish_non_exhaustive()
    }
}

/// A little-endian reader over a byte slice that the caller has already
/// checked to be long enough.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        if let Some(src) = self.bytes.get(self.at..self.at + N) {
            out.copy_from_slice(src);
        }
        self.at += N;
        out
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn i16(&mut self) -> i16 {
        i16::from_le_bytes(self.take())
    }
    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
}

impl Network {
    /// A network of architecture `arch` from its quantised parts (the
    /// trainer's export and tests): the first layer by input row, its
    /// biases, and the output weights and biases by output bucket.
    ///
    /// # Errors
    /// [`NetworkError::WrongSize`] when `ft_weights` does not have
    /// [`Arch::inputs`] rows or the output layers are not
    /// [`Arch::output_buckets`] (both weights and biases),
    /// [`NetworkError::WeightOutOfRange`] for an output weight beyond
    /// `±`[`MAX_OUTPUT_WEIGHT`].
    pub fn from_parts(
        arch: Arch,
        ft_weights: Vec<[i16; HIDDEN]>,
        ft_bias: [i16; HIDDEN],
        out_weights: Vec<[[i16; HIDDEN]; 2]>,
        out_bias: Vec<i32>,
    ) -> Result<Network, NetworkError> {
        if ft_weights.len() != arch.inputs() {
            return Err(NetworkError::WrongSize {
                expected: arch.inputs(),
                found: ft_weights.len(),
            });
        }
        for layer in [out_weights.len(), out_bias.len()] {
            if layer != arch.output_buckets() {
                return Err(NetworkError::WrongSize {
                    expected: arch.output_buckets(),
                    found: layer,
                });
            }
        }
        for (index, &value) in out_weights.iter().flatten().flatten().enumerate() {
            if value.unsigned_abs() > MAX_OUTPUT_WEIGHT.unsigned_abs() {
                return Err(NetworkError::WeightOutOfRange { index, value });
            }
        }
        Ok(Network {
            arch,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
        })
    }

    /// Reads and validates a network file.
    ///
    /// # Errors
    /// [`NetworkError::Missing`] when there is no such file,
    /// [`NetworkError::Io`] when it cannot be read, and every error of
    /// [`Network::from_bytes`].
    pub fn load(path: &Path) -> Result<Network, NetworkError> {
        match std::fs::read(path) {
            Ok(bytes) => Network::from_bytes(&bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(NetworkError::Missing(path.display().to_string()))
            }
            Err(e) => Err(NetworkError::Io(format!("{}: {e}", path.display()))),
        }
    }

    /// Validates and decodes a network file's bytes, in this order: length
    /// of the header, magic, version, the architecture fields of that
    /// version, declared and actual payload length, checksum, output
    /// weight range.
    ///
    /// # Errors
    /// The first check that fails, as a [`NetworkError`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < HEADER_BYTES {
            return Err(NetworkError::Truncated {
                expected: HEADER_BYTES,
                found: bytes.len(),
            });
        }
        let mut c = Cursor { bytes, at: 0 };
        if c.take::<8>() != MAGIC {
            return Err(NetworkError::BadMagic);
        }
        let version = c.u32();
        let Some(arch) = Arch::from_version(version) else {
            return Err(NetworkError::WrongVersion { found: version });
        };
        for (field, expected) in Self::architecture(arch) {
            let found = c.u32();
            if found != expected {
                return Err(NetworkError::WrongArchitecture {
                    version,
                    field,
                    found,
                    expected,
                });
            }
        }
        let size = payload_bytes(arch);
        let declared = c.u32() as usize;
        let stored = c.u32();
        if declared != size {
            return Err(NetworkError::WrongSize {
                expected: size,
                found: declared,
            });
        }
        let payload = &bytes[HEADER_BYTES..];
        if payload.len() < size {
            return Err(NetworkError::Truncated {
                expected: HEADER_BYTES + size,
                found: bytes.len(),
            });
        }
        if payload.len() > size {
            return Err(NetworkError::WrongSize {
                expected: size,
                found: payload.len(),
            });
        }
        let computed = fnv1a32(payload);
        if computed != stored {
            return Err(NetworkError::BadChecksum { stored, computed });
        }
        let mut p = Cursor {
            bytes: payload,
            at: 0,
        };
        let mut ft_weights = vec![[0i16; HIDDEN]; arch.inputs()];
        for row in &mut ft_weights {
            for w in row.iter_mut() {
                *w = p.i16();
            }
        }
        let mut ft_bias = [0i16; HIDDEN];
        for b in &mut ft_bias {
            *b = p.i16();
        }
        let mut out_weights = vec![[[0i16; HIDDEN]; 2]; arch.output_buckets()];
        for w in out_weights.iter_mut().flatten().flatten() {
            *w = p.i16();
        }
        let out_bias = (0..arch.output_buckets()).map(|_| p.i32()).collect();
        Network::from_parts(arch, ft_weights, ft_bias, out_weights, out_bias)
    }

    /// The architecture fields of the header of `arch`'s format, in file
    /// order, with this build's values.
    fn architecture(arch: Arch) -> [(&'static str, u32); 7] {
        // The constants are small; the casts cannot truncate.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let (inputs, buckets) = (
            ("inputs", squares::INPUTS as u32),
            ("input buckets", arch.input_buckets() as u32),
        );
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        [
            inputs,
            buckets,
            (HIDDEN_FIELD, HIDDEN as u32),
            ("activation", ACTIVATION_SCRELU),
            ("QA", QA as u32),
            ("QB", QB as u32),
            ("scale", SCALE as u32),
        ]
    }

    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(payload_bytes(self.arch));
        for w in self.ft_weights.iter().flatten() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.ft_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        for w in self.out_weights.iter().flatten().flatten() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.out_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// The checksum of the payload, as the header stores it.
    pub fn checksum(&self) -> u32 {
        fnv1a32(&self.payload())
    }

    /// The network as a file (header and payload), which
    /// [`Network::from_bytes`] reads back unchanged.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.arch.version().to_le_bytes());
        for (_, v) in Self::architecture(self.arch) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        // A payload is far below 4 GiB.
        #[allow(clippy::cast_possible_truncation)]
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&fnv1a32(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// A one-line description: architecture and checksum.
    pub fn describe(&self) -> String {
        let layers = match self.arch {
            Arch::Squares => format!(
                "({}x{} -> {HIDDEN})x2 -> 1",
                squares::BUCKETS,
                squares::INPUTS
            ),
        };
        format!(
            "Chariot NNUE v{}: {layers}, SCReLU, QA {QA} QB {QB} scale {SCALE}, checksum {:08x}",
            self.arch.version(),
            self.checksum()
        )
    }

    /// The architecture: how positions become rows and output buckets.
    #[inline]
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The first-layer weights of input row `row`.
    ///
    /// # Panics
    /// If `row` is not below [`Arch::inputs`] (no piece of a position has
    /// such a row).
    #[inline]
    pub fn ft_row(&self, row: usize) -> &[i16; HIDDEN] {
        &self.ft_weights[row]
    }

    /// The first layer's biases.
    pub fn ft_bias(&self) -> &[i16; HIDDEN] {
        &self.ft_bias
    }

    /// The output weights of output bucket `bucket`: `[0]` for the side to
    /// move's accumulator, `[1]` for the other.
    ///
    /// # Panics
    /// If `bucket` is not below [`Arch::output_buckets`].
    #[inline]
    pub fn out_weights(&self, bucket: usize) -> &[[i16; HIDDEN]; 2] {
        &self.out_weights[bucket]
    }

    /// The output bias of output bucket `bucket` (scaled by `QA × QB`).
    ///
    /// # Panics
    /// As [`Network::out_weights`].
    #[inline]
    pub fn out_bias(&self, bucket: usize) -> i32 {
        self.out_bias[bucket]
    }
}
