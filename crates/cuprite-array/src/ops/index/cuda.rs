//! The scatter kernels (see [`super::call`]): their bodies are device function templates in
//! `scatter.cu`; each entry point's parameters are described once here, as a typed struct
//! that yields both the entry's C signature and the launch's words and buffer accesses.
//!
//! A source is the typed header ([`Types`]: the C types its entry point names and the
//! constants the bodies share with Rust), then `scatter.cu`, then the kernel marker and the
//! entry point.

use super::desc::{PART_MAX, PART_SPAN, PART_TILE, Reduce, SH_ADD_MAX, ScatterCall};
use crate::codegen::{
    KernelParams, KernelSource, LaunchArgs, MARKER, MaybeWrite, Param, ReadBuf, WriteBuf, entry,
    kernel_params,
};
use crate::dtype::DType;
use std::fmt::Write as _;

/// The bodies of every scatter kernel.
const BODIES: &str = include_str!("scatter.cu");

/// Updates a thread takes at once in the per-update kernels.
const BATCH: usize = 4;

/// Threads a block of the partitioned sum's passes.
pub(super) const PART_THREADS: usize = 512;

/// Threads a block of every other scatter kernel.
pub(super) const THREADS: u32 = 256;

/// The C type an index of `d` is read as (the call is only made with these two).
fn idx_cty(d: DType) -> &'static str {
    if d == DType::I32 { "int" } else { "long long" }
}

/// The C type of an element moved as raw bits, by size.
fn word(size: usize) -> &'static str {
    match size {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "ulonglong2",
    }
}

/// The C type of an accumulation dtype (those the call accumulates in).
fn acc_cty(d: DType) -> &'static str {
    match d {
        DType::F32 => "float",
        DType::F64 => "double",
        DType::I32 => "int",
        DType::U32 => "unsigned int",
        DType::I64 => "long long",
        _ => "unsigned long long",
    }
}

/// The typed template parameters of one source: the element types its entry point names
/// (`IdxT`, `WordT`, `AccT`; only those it uses, so that sources which share a name share
/// their text).
#[derive(Clone, Copy, Default)]
struct Types {
    idx: Option<DType>,
    word: Option<usize>,
    acc: Option<DType>,
}

impl Types {
    fn header(self) -> String {
        let mut h = String::from("typedef unsigned long long u64t;\ntypedef long long i64t;\n");
        if let Some(d) = self.idx {
            let _ = writeln!(h, "typedef {} IdxT;", idx_cty(d));
        }
        if let Some(s) = self.word {
            let _ = writeln!(h, "typedef {} WordT;", word(s));
        }
        if let Some(d) = self.acc {
            let _ = writeln!(h, "typedef {} AccT;", acc_cty(d));
        }
        for (name, v) in [
            ("BATCH", BATCH),
            ("PART_TILE", PART_TILE),
            ("PART_SPAN", PART_SPAN),
            ("PART_THREADS", PART_THREADS),
            ("PART_MAX", PART_MAX),
            ("SH_ADD_MAX", SH_ADD_MAX),
        ] {
            let _ = writeln!(h, "constexpr int {name} = {v};");
        }
        h
    }
}

/// The layout of the updates every per-update kernel takes (see `call.rs`), and the flag it
/// raises for an update whose index is out of range (null: the call is unchecked).
pub(super) struct Updates<'a> {
    pub m: i64,
    pub k: i64,
    pub inner: i64,
    pub n: i64,
    pub idx1d: bool,
    pub mode: i64,
    /// `ceil(log2(m))`: the fixed-point `f32` sum's headroom.
    pub hglob: i64,
    pub chk: MaybeWrite<'a>,
}

impl<'a> Param<'a> for Updates<'a> {
    fn decl(_name: &str, _elem: &str) -> String {
        let mut s: Vec<String> = ["m", "k", "inner", "n", "idx1d", "mode", "hglob"]
            .iter()
            .map(|n| i64::decl(n, ""))
            .collect();
        // Not `__restrict__`: every thread may raise it.
        s.push("unsigned int *chk".into());
        s.join(", ")
    }
    fn names(_name: &str) -> String {
        "m, k, inner, n, idx1d, mode, hglob, chk".into()
    }
    fn push(&self, args: &mut LaunchArgs<'a>) {
        for v in [
            self.m,
            self.k,
            self.inner,
            self.n,
            self.idx1d as i64,
            self.mode,
            self.hglob,
        ] {
            v.push(args);
        }
        self.chk.push(args);
    }
}

kernel_params! {
    /// The copy of the base into the output.
    pub(super) struct Copy<'a> { src: ReadBuf<'a> as "WordT", dst: WriteBuf<'a> as "WordT", n: i64 }
}
kernel_params! {
    /// Every word of a scratch buffer set to `v`.
    pub(super) struct Fill<'a> { s: WriteBuf<'a> as "u64t", n: i64, v: u64 }
}
kernel_params! {
    /// A set (non-deterministic), add, max or min of each update into its destination.
    pub(super) struct Combine<'a> {
        idx: ReadBuf<'a> as "IdxT",
        v: ReadBuf<'a> as "AccT",
        out: WriteBuf<'a> as "AccT",
        upd: Updates<'a>,
    }
}
kernel_params! {
    /// The non-deterministic set: raw words.
    pub(super) struct Set<'a> {
        idx: ReadBuf<'a> as "IdxT",
        v: ReadBuf<'a> as "WordT",
        out: WriteBuf<'a> as "WordT",
        upd: Updates<'a>,
    }
}
kernel_params! {
    /// The deterministic set's first pass: the last update of each destination into `win`.
    pub(super) struct LastFind<'a> {
        idx: ReadBuf<'a> as "IdxT",
        win: WriteBuf<'a> as "i64t",
        upd: Updates<'a>,
    }
}
kernel_params! {
    /// The deterministic set's second pass: each destination's winning update written.
    pub(super) struct LastWrite<'a> {
        idx: ReadBuf<'a> as "IdxT",
        v: ReadBuf<'a> as "WordT",
        out: WriteBuf<'a> as "WordT",
        win: ReadBuf<'a> as "i64t",
        upd: Updates<'a>,
    }
}
kernel_params! {
    /// The binned `f32` sum's pass: bins `nd` words apart, of width `w` exponents.
    pub(super) struct Bin<'a> {
        idx: ReadBuf<'a> as "IdxT",
        v: ReadBuf<'a> as "float",
        acc: WriteBuf<'a> as "u64t",
        fl: WriteBuf<'a> as "u64t",
        nd: i64,
        w: i64,
        upd: Updates<'a>,
    }
}
kernel_params! {
    /// The binned sum's finish over the `n` destinations (`nb` bins).
    pub(super) struct BinFinish<'a> {
        out: WriteBuf<'a> as "float",
        acc: ReadBuf<'a> as "u64t",
        fl: ReadBuf<'a> as "u64t",
        n: i64,
        w: i64,
        nb: i64,
    }
}
kernel_params! {
    /// The fixed-point sum's first pass: the largest magnitude (and for `f64` the count).
    pub(super) struct FixedMax<'a> {
        idx: ReadBuf<'a> as "IdxT",
        v: ReadBuf<'a> as "AccT",
        mx: WriteBuf<'a> as "u64t",
        cnt: WriteBuf<'a> as "u64t",
        upd: Updates<'a>,
    }
}
kernel_params! {
    /// The fixed-point sum's second pass: the quantised updates summed as integers.
    pub(super) struct FixedSum<'a> {
        idx: ReadBuf<'a> as "IdxT",
        v: ReadBuf<'a> as "AccT",
        mx: ReadBuf<'a> as "u64t",
        cnt: ReadBuf<'a> as "u64t",
        acc: WriteBuf<'a> as "u64t",
        fl: WriteBuf<'a> as "u64t",
        upd: Updates<'a>,
    }
}
kernel_params! {
    /// The fixed-point sum's finish over the `n` destinations.
    pub(super) struct FixedFinish<'a> {
        out: WriteBuf<'a> as "AccT",
        mx: ReadBuf<'a> as "u64t",
        cnt: ReadBuf<'a> as "u64t",
        acc: ReadBuf<'a> as "u64t",
        fl: ReadBuf<'a> as "u64t",
        n: i64,
        hglob: i64,
    }
}
kernel_params! {
    /// The partitioned sum's first pass over tiles of updates (`parts` partitions).
    pub(super) struct Partition<'a> {
        idx: ReadBuf<'a> as "IdxT",
        v: ReadBuf<'a> as "float",
        ld: WriteBuf<'a> as "unsigned short",
        lv: WriteBuf<'a> as "float",
        off: WriteBuf<'a> as "unsigned",
        parts: i64,
        upd: Updates<'a>,
    }
}
kernel_params! {
    /// The partitioned sum's second pass: `parts * ks` blocks over `tiles` tiles.
    pub(super) struct PartitionSum<'a> {
        ld: ReadBuf<'a> as "unsigned short",
        lv: ReadBuf<'a> as "float",
        off: ReadBuf<'a> as "unsigned",
        tiles: i64,
        parts: i64,
        ks: i64,
        n_out: i64,
        out: WriteBuf<'a> as "float",
    }
}

/// One source: `name`'s entry point with `P`'s parameters calling `body`.
fn source<P: KernelParams<'static>>(
    name: String,
    types: Types,
    bounds: &str,
    body: &str,
) -> KernelSource {
    let text = format!(
        "{}{BODIES}{MARKER}{}",
        types.header(),
        entry::<P>(&name, bounds, body)
    );
    KernelSource::new(name, text)
}

/// The kernels of one scatter call, named by their role.
pub(super) struct Plan {
    /// The copy of the base into the output (always first).
    pub copy: KernelSource,
    pub passes: Passes,
}

/// The update passes of a call, by its form.
pub(super) enum Passes {
    /// Non-deterministic set, or atomic add/max/min (with the partitioned `f32` sum where it
    /// applies: taken when its scratch can be had, else the atomic pass). A non-deterministic
    /// sum into at most [`SH_ADD_MAX`] destinations adds in shared memory first
    /// ([`ScatterCall::shared_sum`]), with a grid of the blocks resident at once.
    Atomic {
        update: KernelSource,
        parts: Option<(KernelSource, KernelSource)>,
    },
    /// Deterministic set: the last update of each destination wins.
    Last {
        fill: KernelSource,
        find: KernelSource,
        write: KernelSource,
    },
    /// Deterministic binned `f32` sum.
    Binned {
        fill: KernelSource,
        bin: KernelSource,
        finish: KernelSource,
    },
    /// Deterministic fixed-point float sum.
    Fixed {
        fill: KernelSource,
        max: KernelSource,
        sum: KernelSource,
        finish: KernelSource,
    },
}

impl Plan {
    /// The kernels `c` launches.
    pub(super) fn new(c: &ScatterCall) -> Plan {
        let tag = format!("{}_{}_{}", c.dtype.name(), c.idx_dtype.name(), c.det as u8);
        let b = THREADS.to_string();
        let idx = Types {
            idx: Some(c.idx_dtype),
            ..Types::default()
        };
        let words = Types {
            word: Some(c.dtype.size()),
            ..idx
        };
        let acc = Types {
            acc: Some(c.dtype),
            ..idx
        };
        let copy = source::<Copy>(
            format!("cuprite_idx_copy{}", c.dtype.size()),
            Types {
                word: Some(c.dtype.size()),
                ..Types::default()
            },
            &b,
            "idx_copy",
        );
        let fill = || source::<Fill>("cuprite_idx_fill".into(), Types::default(), &b, "idx_fill");
        let passes = match (c.op, c.det) {
            (Reduce::Set, true) => Passes::Last {
                fill: fill(),
                find: source::<LastFind>(format!("cuprite_idx_last1_{tag}"), idx, &b, "idx_last1"),
                write: source::<LastWrite>(
                    format!("cuprite_idx_last2_{tag}"),
                    words,
                    &b,
                    "idx_last2",
                ),
            },
            (Reduce::Add, true) if c.bins().is_some() => Passes::Binned {
                fill: fill(),
                bin: source::<Bin>(format!("cuprite_idx_bin_{tag}"), idx, &b, "idx_bin"),
                finish: source::<BinFinish>(
                    "cuprite_idx_binfin".into(),
                    Types::default(),
                    &b,
                    "idx_binfin",
                ),
            },
            (Reduce::Add, true) if c.dtype.is_float() => Passes::Fixed {
                fill: fill(),
                max: source::<FixedMax>(format!("cuprite_idx_fx1_{tag}"), acc, &b, "idx_fx1"),
                sum: source::<FixedSum>(format!("cuprite_idx_fx2_{tag}"), acc, &b, "idx_fx2"),
                finish: source::<FixedFinish>(
                    format!("cuprite_idx_fx3_{}", c.dtype.name()),
                    Types {
                        acc: Some(c.dtype),
                        ..Types::default()
                    },
                    &b,
                    "idx_fx3",
                ),
            },
            (Reduce::Set, false) => Passes::Atomic {
                update: source::<Set>(format!("cuprite_idx_set_{tag}"), words, &b, "idx_set"),
                parts: None,
            },
            (op, _) => {
                let parts = c.partitions().map(|_| {
                    (
                        source::<Partition>(
                            format!("cuprite_idx_part1_{tag}"),
                            idx,
                            &format!("{PART_THREADS}, 3"),
                            "idx_part1",
                        ),
                        source::<PartitionSum>(
                            "cuprite_idx_part2".into(),
                            Types::default(),
                            &format!("{PART_THREADS}, 4"),
                            "idx_part2",
                        ),
                    )
                });
                let sh = if c.shared_sum() { "_sh" } else { "" };
                let name = format!("cuprite_idx_{}{sh}_{tag}", op.name());
                let body = format!("idx_{}{sh}", op.name());
                Passes::Atomic {
                    update: source::<Combine>(name, acc, &b, &body),
                    parts,
                }
            }
        };
        Plan { copy, passes }
    }

    /// Every source, in launch order (the plain atomic pass before the partitioned ones).
    pub(super) fn sources(self) -> Vec<KernelSource> {
        let mut v = vec![self.copy];
        match self.passes {
            Passes::Atomic { update, parts } => {
                v.push(update);
                if let Some((a, b)) = parts {
                    v.extend([a, b]);
                }
            }
            Passes::Last { fill, find, write } => v.extend([fill, find, write]),
            Passes::Binned { fill, bin, finish } => v.extend([fill, bin, finish]),
            Passes::Fixed {
                fill,
                max,
                sum,
                finish,
            } => v.extend([fill, max, sum, finish]),
        }
        v
    }
}
