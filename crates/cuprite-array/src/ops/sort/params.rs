//! The parameters of every sort-family kernel, each described once: the kernel's C signature
//! (`kernels.rs`, `kernels_select.rs` put it in front of their bodies) and the launch's words
//! and buffer accesses (`gpu.rs` fills the fields by name) both come from these structs. The
//! field names are the C names the bodies use. Element types: `Bits` (the raw bits of the
//! sorted dtype), `K` (its key), `OutT` (a quantile's result), `WordT` (a gathered element),
//! all defined by the kernel's source.

use crate::codegen::{MaybeRead, MaybeWrite, ReadBuf, SharedBuf, WriteBuf, kernel_params};

kernel_params! {
    /// One onesweep pass of the radix sort over one digit.
    pub(crate) struct ScatterPass<'a> {
        src: ReadBuf<'a> as "void",
        iin: MaybeRead<'a> as "unsigned",
        kout: MaybeWrite<'a> as "void",
        iout: MaybeWrite<'a> as "void",
        totals: ReadBuf<'a> as "unsigned",
        status: SharedBuf<'a> as "u64t",
        n: u64,
        ntiles: u64,
        shift: u64,
        seg: u64,
        desc: u64,
        epoch: u64,
    }
}
kernel_params! {
    /// The digit histograms of every pass.
    pub(crate) struct Histogram<'a> {
        x: ReadBuf<'a> as "Bits",
        hist: WriteBuf<'a> as "unsigned",
        n: u64,
        tpb: u64,
        desc: u64,
        seg: u64,
        sp: u64,
    }
}
kernel_params! {
    /// The copy out of input already in order (values and/or indices).
    pub(crate) struct CopyOut<'a> {
        x: ReadBuf<'a> as "Bits",
        vout: MaybeWrite<'a> as "Bits",
        iout: MaybeWrite<'a> as "i64t",
        n: u64,
        desc: u64,
        seg: u64,
    }
}
kernel_params! {
    /// The sort of short rows, a block a row.
    pub(crate) struct Rows<'a> {
        x: ReadBuf<'a> as "Bits",
        vout: MaybeWrite<'a> as "Bits",
        iout: MaybeWrite<'a> as "i64t",
        rows: u64,
        n: u64,
        desc: u64,
    }
}
kernel_params! {
    /// Selection: the histogram of the top digit, and the NaNs counted.
    pub(crate) struct SelHist0<'a> {
        x: ReadBuf<'a> as "Bits",
        n: u64,
        flip: u64,
        hist: WriteBuf<'a> as "unsigned",
        state: WriteBuf<'a> as "u64t",
    }
}
kernel_params! {
    /// Selection: the digit the rank falls in.
    pub(crate) struct SelStep<'a> {
        hist: WriteBuf<'a> as "unsigned",
        state: WriteBuf<'a> as "u64t",
        j: u64,
        kd: u64,
        rank0: u64,
    }
}
kernel_params! {
    /// Selection: the candidates matching the top `jm` digits.
    pub(crate) struct SelCompact<'a> {
        x: ReadBuf<'a> as "Bits",
        n: u64,
        flip: u64,
        state: WriteBuf<'a> as "u64t",
        ckey: WriteBuf<'a> as "K",
        cidx: WriteBuf<'a> as "unsigned",
        jm: u64,
    }
}
kernel_params! {
    /// Selection: the second digit's histogram from the input.
    pub(crate) struct SelHistX<'a> {
        x: ReadBuf<'a> as "Bits",
        n: u64,
        flip: u64,
        state: ReadBuf<'a> as "u64t",
        hist: WriteBuf<'a> as "unsigned",
        j: u64,
        kd: u64,
    }
}
kernel_params! {
    /// Selection: digit `j`'s histogram of the candidates (their count in `state[cw]`).
    pub(crate) struct SelHist<'a> {
        ckey: ReadBuf<'a> as "K",
        cidx: ReadBuf<'a> as "unsigned",
        state: ReadBuf<'a> as "u64t",
        hist: WriteBuf<'a> as "unsigned",
        j: u64,
        kd: u64,
        cw: u64,
    }
}
kernel_params! {
    /// Selection: the candidates matching one digit more.
    pub(crate) struct SelRefine<'a> {
        ckey: ReadBuf<'a> as "K",
        cidx: ReadBuf<'a> as "unsigned",
        state: WriteBuf<'a> as "u64t",
        okey: WriteBuf<'a> as "K",
        oidx: WriteBuf<'a> as "unsigned",
        j: u64,
        kd: u64,
    }
}
kernel_params! {
    /// Top-k: the elements up to the selected one.
    pub(crate) struct SelCollect<'a> {
        x: ReadBuf<'a> as "Bits",
        n: u64,
        flip: u64,
        state: WriteBuf<'a> as "u64t",
        okey: WriteBuf<'a> as "K",
        oidx: WriteBuf<'a> as "unsigned",
    }
}
kernel_params! {
    /// Top-k: the `kk` collected elements sorted.
    pub(crate) struct SelSortK<'a> {
        okey: ReadBuf<'a> as "K",
        oidx: ReadBuf<'a> as "unsigned",
        kk: u64,
        flip: u64,
        vout: WriteBuf<'a> as "Bits",
        iout: WriteBuf<'a> as "i64t",
    }
}
kernel_params! {
    /// The selected element written at `pos` (and at `nanpos`).
    pub(crate) struct SelValue<'a> {
        state: ReadBuf<'a> as "u64t",
        flip: u64,
        vout: WriteBuf<'a> as "Bits",
        iout: MaybeWrite<'a> as "i64t",
        pos: u64,
        nanpos: u64,
    }
}
kernel_params! {
    /// Quantiles of sorted rows.
    pub(crate) struct Pick<'a> {
        s: ReadBuf<'a> as "Bits",
        out: WriteBuf<'a> as "OutT",
        rows: u64,
        n: u64,
        lo: u64,
        hi: u64,
        t: f64,
        method: u64,
    }
}
kernel_params! {
    /// Modes of sorted rows.
    pub(crate) struct Mode<'a> {
        s: ReadBuf<'a> as "Bits",
        vout: WriteBuf<'a> as "Bits",
        cout: WriteBuf<'a> as "i64t",
        rows: u64,
        n: u64,
    }
}
kernel_params! {
    /// Run flags of sorted values.
    pub(crate) struct RunFlags<'a> {
        s: ReadBuf<'a> as "Bits",
        perm: MaybeRead<'a> as "i64t",
        flags: WriteBuf<'a> as "unsigned",
        n: u64,
        mode: u64,
        na: u64,
    }
}
kernel_params! {
    /// Flagged elements counted per chunk.
    pub(crate) struct RunCount<'a> {
        s: ReadBuf<'a> as "Bits",
        perm: MaybeRead<'a> as "i64t",
        counts: WriteBuf<'a> as "unsigned",
        n: u64,
        mode: u64,
        na: u64,
    }
}
kernel_params! {
    /// Flagged elements written at their chunk's offset.
    pub(crate) struct RunWrite<'a> {
        s: ReadBuf<'a> as "Bits",
        perm: MaybeRead<'a> as "i64t",
        offsets: ReadBuf<'a> as "unsigned",
        out: WriteBuf<'a> as "Bits",
        n: u64,
        mode: u64,
        na: u64,
    }
}
kernel_params! {
    /// `unique`'s values, first indices, run starts and inverse.
    pub(crate) struct UniqueOut<'a> {
        s: ReadBuf<'a> as "Bits",
        perm: ReadBuf<'a> as "i64t",
        flags: ReadBuf<'a> as "unsigned",
        ids: ReadBuf<'a> as "unsigned",
        uval: WriteBuf<'a> as "Bits",
        ufirst: WriteBuf<'a> as "i64t",
        starts: WriteBuf<'a> as "unsigned",
        inverse: WriteBuf<'a> as "i64t",
        n: u64,
    }
}
kernel_params! {
    /// `unique`'s first indices lowered to each run's smallest.
    pub(crate) struct UniqueFirstMin<'a> {
        s: ReadBuf<'a> as "Bits",
        perm: ReadBuf<'a> as "i64t",
        flags: ReadBuf<'a> as "unsigned",
        ids: ReadBuf<'a> as "unsigned",
        ufirst: WriteBuf<'a> as "i64t",
        n: u64,
    }
}
kernel_params! {
    /// Run lengths from run starts.
    pub(crate) struct RunCounts<'a> {
        starts: ReadBuf<'a> as "unsigned",
        counts: WriteBuf<'a> as "i64t",
        nu: u64,
        n: u64,
    }
}
kernel_params! {
    /// The exclusive scan of each tile of `u32` flags, its total to `sums`.
    pub(crate) struct ScanTiles<'a> {
        data: WriteBuf<'a> as "unsigned",
        sums: WriteBuf<'a> as "unsigned",
        n: u64,
    }
}
kernel_params! {
    /// The exclusive scan of the tiles' totals (one block).
    pub(crate) struct ScanSums<'a> {
        sums: WriteBuf<'a> as "unsigned",
        ntiles: u64,
    }
}
kernel_params! {
    /// Each tile's offset added to its scanned flags.
    pub(crate) struct ScanAdd<'a> {
        data: WriteBuf<'a> as "unsigned",
        sums: ReadBuf<'a> as "unsigned",
        n: u64,
    }
}
kernel_params! {
    /// A gather of elements by sort permutation.
    pub(crate) struct Gather<'a> {
        v: ReadBuf<'a> as "WordT",
        perm: ReadBuf<'a> as "i64t",
        out: WriteBuf<'a> as "WordT",
        total: u64,
        n: u64,
    }
}
