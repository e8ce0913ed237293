//! The parameters a scan kernel takes after its program's (those are walked by
//! `codegen::params`): the line geometry and, for the look-back kernels, the status arrays.
//! One description each ([`LookBackArgs`], [`PipeArgs`], [`ChunkArgs`], [`ColumnArgs`], and [`SearchArgs`] for
//! `searchsorted`) yields both the signature's tail and a launch's words and accesses.

use crate::codegen::kargs::{BufAt, CType, KernelParams, Name, Param};
use crate::dtype::DType;
use crate::storage::DevBuf;

/// Bytes of the tile counter at the start of the look-back's flags allocation (one
/// `unsigned`, padded so that the flags or status words after it stay 16-byte aligned).
pub(crate) const COUNTER_BYTES: usize = 16;

/// The look-back status of one launch: `flags` holds the zeroed counter, then either one
/// zeroed 64-bit status word per tile (packed status) or one zeroed flag per tile;
/// `status` (not packed) holds `tiles` aggregates then `tiles` inclusive prefixes, of
/// `status_size` bytes each (see [`LookBackArgs`]). Both absent when every line is one tile.
#[derive(Clone, Copy)]
pub(crate) struct LookBackStatus<'a> {
    pub flags: &'a DevBuf,
    pub status: Option<&'a DevBuf>,
    pub tiles: usize,
}

/// The geometry and status of one launch of a look-back kernel.
#[derive(Clone, Copy)]
pub(crate) struct LookBackBind<'a> {
    /// Elements of a line.
    pub len: usize,
    /// The stride of a line (the product of the extents after its axis).
    pub inner: usize,
    /// Tiles per line.
    pub tpl: usize,
    pub status: Option<LookBackStatus<'a>>,
}

/// The tail of a look-back kernel's parameters (`scan_tiles`, `scan_vec`, `scan_bits`):
/// `len_`, `inner_`, `tpl_`, `flags_`, `agg_`, `incl_` (read only when `tpl_ > 1`) and
/// `ctr_` (the tile counter).
pub(crate) struct LookBackArgs<'a> {
    /// Bytes of one element of the status arrays (the scan spec's `status_size`).
    pub status_size: usize,
    /// `None` for the signature.
    pub bind: Option<LookBackBind<'a>>,
}

impl<'a> KernelParams<'a> for LookBackArgs<'a> {
    fn each_param(&self, f: &mut dyn FnMut(Param<'a>)) {
        let b = self.bind.as_ref();
        f(Param::U64(
            Name::Fixed("len_"),
            b.map_or(0, |b| b.len as u64),
        ));
        f(Param::U64(
            Name::Fixed("inner_"),
            b.map_or(0, |b| b.inner as u64),
        ));
        f(Param::U64(
            Name::Fixed("tpl_"),
            b.map_or(0, |b| b.tpl as u64),
        ));
        let st = b.and_then(|b| b.status);
        let unsigned = CType::Named("unsigned");
        f(Param::Write {
            name: Name::Fixed("flags_"),
            ty: unsigned,
            at: st.map(|s| BufAt {
                buf: s.flags,
                elem: COUNTER_BYTES,
            }),
        });
        let values = st.and_then(|s| s.status.map(|v| (v, s.tiles)));
        f(Param::Write {
            name: Name::Fixed("agg_"),
            ty: CType::Named("E_"),
            at: values.map(|(v, _)| BufAt::start(v)),
        });
        f(Param::Write {
            name: Name::Fixed("incl_"),
            ty: CType::Named("E_"),
            at: values.map(|(v, tiles)| BufAt {
                buf: v,
                elem: self.status_size * tiles,
            }),
        });
        f(Param::Write {
            name: Name::Fixed("ctr_"),
            ty: unsigned,
            at: st.map(|s| BufAt::start(s.flags)),
        });
    }
}

/// The geometry and status of one launch of the pipelined kernel.
#[derive(Clone, Copy)]
pub(crate) struct PipeBind<'a> {
    /// Elements of a line.
    pub len: usize,
    /// Tiles per line.
    pub tpl: usize,
    /// Tiles of all lines.
    pub tiles: usize,
    /// The zeroed counter, then (when `tpl > 1`) one zeroed 64-bit status word per tile.
    pub flags: &'a DevBuf,
}

/// The tail of the pipelined kernel's parameters (`scan_pipe`): `len_`, `tpl_`, `tiles_`,
/// `flags_` (the status words, read only when `tpl_ > 1`: null otherwise) and `ctr_` (the
/// tile counter).
pub(crate) struct PipeArgs<'a> {
    /// `None` for the signature.
    pub bind: Option<PipeBind<'a>>,
}

impl<'a> KernelParams<'a> for PipeArgs<'a> {
    fn each_param(&self, f: &mut dyn FnMut(Param<'a>)) {
        let b = self.bind.as_ref();
        f(Param::U64(
            Name::Fixed("len_"),
            b.map_or(0, |b| b.len as u64),
        ));
        f(Param::U64(
            Name::Fixed("tpl_"),
            b.map_or(0, |b| b.tpl as u64),
        ));
        f(Param::U64(
            Name::Fixed("tiles_"),
            b.map_or(0, |b| b.tiles as u64),
        ));
        f(Param::Write {
            name: Name::Fixed("flags_"),
            ty: CType::Named("unsigned long long"),
            at: b.filter(|b| b.tpl > 1).map(|b| BufAt {
                buf: b.flags,
                elem: COUNTER_BYTES,
            }),
        });
        f(Param::Write {
            name: Name::Fixed("ctr_"),
            ty: CType::Named("unsigned"),
            at: b.map(|b| BufAt::start(b.flags)),
        });
    }
}

/// The geometry and status of one launch of the chunked kernel.
#[derive(Clone, Copy)]
pub(crate) struct ChunkBind<'a> {
    /// Elements of the line.
    pub len: usize,
    /// Tiles of the line.
    pub tiles: usize,
    /// Tiles of a chunk.
    pub chunk: usize,
    /// The zeroed counter, then `tiles` zeroed status words, then one zeroed carry word a
    /// chunk (64 bits each).
    pub status: &'a DevBuf,
}

/// The tail of the chunked kernel's parameters (`scan_chunked`): `len_`, `tiles_`, `chunk_`,
/// `flags_` (the tiles' status words), `carry_` (the chunks' carry words) and `ctr_` (the
/// ticket counter).
pub(crate) struct ChunkArgs<'a> {
    /// `None` for the signature.
    pub bind: Option<ChunkBind<'a>>,
}

impl<'a> KernelParams<'a> for ChunkArgs<'a> {
    fn each_param(&self, f: &mut dyn FnMut(Param<'a>)) {
        let b = self.bind.as_ref();
        f(Param::U64(
            Name::Fixed("len_"),
            b.map_or(0, |b| b.len as u64),
        ));
        f(Param::U64(
            Name::Fixed("tiles_"),
            b.map_or(0, |b| b.tiles as u64),
        ));
        f(Param::U64(
            Name::Fixed("chunk_"),
            b.map_or(0, |b| b.chunk as u64),
        ));
        let word = CType::Named("unsigned long long");
        f(Param::Write {
            name: Name::Fixed("flags_"),
            ty: word,
            at: b.map(|b| BufAt {
                buf: b.status,
                elem: COUNTER_BYTES,
            }),
        });
        f(Param::Write {
            name: Name::Fixed("carry_"),
            ty: word,
            at: b.map(|b| BufAt {
                buf: b.status,
                elem: COUNTER_BYTES + 8 * b.tiles,
            }),
        });
        f(Param::Write {
            name: Name::Fixed("ctr_"),
            ty: CType::Named("unsigned"),
            at: b.map(|b| BufAt::start(b.status)),
        });
    }
}

/// The tail of the one-thread-per-line kernel's parameters (`scan_columns`): `len_`,
/// `inner_`, `lines_`.
pub(crate) struct ColumnArgs {
    pub len: usize,
    pub inner: usize,
    pub lines: usize,
}

impl<'a> KernelParams<'a> for ColumnArgs {
    fn each_param(&self, f: &mut dyn FnMut(Param<'a>)) {
        f(Param::U64(Name::Fixed("len_"), self.len as u64));
        f(Param::U64(Name::Fixed("inner_"), self.inner as u64));
        f(Param::U64(Name::Fixed("lines_"), self.lines as u64));
    }
}

/// The signature tail of the look-back kernels.
pub(crate) fn look_back_signature() -> String {
    LookBackArgs {
        status_size: 0,
        bind: None,
    }
    .signature()
}

/// The signature tail of the pipelined kernel.
pub(crate) fn pipe_signature() -> String {
    PipeArgs { bind: None }.signature()
}

/// The signature tail of the chunked kernel.
pub(crate) fn chunk_signature() -> String {
    ChunkArgs { bind: None }.signature()
}

/// The signature tail of the column kernel.
pub(crate) fn column_signature() -> String {
    KernelParams::signature(&ColumnArgs {
        len: 0,
        inner: 0,
        lines: 0,
    })
}

/// The sorted rows and geometry of one `searchsorted` launch.
#[derive(Clone, Copy)]
pub(crate) struct SearchBind<'a> {
    /// The sorted rows, contiguous from the buffer's start.
    pub rows: &'a DevBuf,
    /// Elements of a row.
    pub m: usize,
    /// Queries per row.
    pub kq: usize,
    /// Whether a query equal to elements goes after them.
    pub right: bool,
}

/// The tail of the `searchsorted` kernel's parameters (after its program's): `srt_` (the
/// sorted rows of `sorted`), `m_` (row length), `kq_` (queries per row), `right_` (1: the
/// right side).
pub(crate) struct SearchArgs<'a> {
    pub sorted: DType,
    /// `None` for the signature.
    pub bind: Option<SearchBind<'a>>,
}

impl<'a> KernelParams<'a> for SearchArgs<'a> {
    fn each_param(&self, f: &mut dyn FnMut(Param<'a>)) {
        let b = self.bind.as_ref();
        f(Param::Read {
            name: Name::Fixed("srt_"),
            ty: CType::Of(self.sorted),
            at: b.map(|b| BufAt::start(b.rows)),
        });
        f(Param::U64(Name::Fixed("m_"), b.map_or(0, |b| b.m as u64)));
        f(Param::U64(Name::Fixed("kq_"), b.map_or(0, |b| b.kq as u64)));
        f(Param::U64(
            Name::Fixed("right_"),
            b.map_or(0, |b| u64::from(b.right)),
        ));
    }
}
