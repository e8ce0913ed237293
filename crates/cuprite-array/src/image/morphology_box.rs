//! Grey dilation and erosion by a flat full box over the last two axes as one library call:
//! the two one-axis passes (rows, then columns) fused into one kernel (`morphology_box.cu`)
//! with the intermediate in shared memory, and a CPU twin that runs the two one-axis passes
//! of [`MinMax`] one after the other, so that both backends give what the separate passes
//! give, exactly.

use super::Boundary;
use super::morphology_call::{MinMax, as_dtype, minmax_dtype, type_header};
use crate::codegen::{KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::Layout;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};

/// Threads a block (`MB_THREADS` in the kernel).
const THREADS: usize = 256;
/// The most taps a pass of the fused kernel takes (a rows-pass thread holds `8 + taps - 1`
/// values in registers).
pub(crate) const BOX_MAX_TAPS: usize = 32;

kernel_params! {
    /// The box min/max filter of `planes` images of `h x w` (see `morphology_box.cu`).
    pub(super) struct MinMaxBoxArgs<'a> {
        x: ReadBuf<'a> as "S",
        y: WriteBuf<'a> as "S",
        planes: i64,
        h: i64,
        w: i64,
        mode: i64,
        cval: f64,
    }
}

/// The min (erosion) or max (dilation) of `planes` images of `h x w` over a full box: along
/// the rows axis at the offsets `rows`, then along the columns axis at the offsets `cols`,
/// each visited in its order. Each list is consecutive with a step of 1 or -1.
#[derive(Debug)]
pub(crate) struct MinMaxBox {
    pub dtype: DType,
    pub max: bool,
    pub planes: usize,
    pub h: usize,
    pub w: usize,
    pub rows: Vec<i64>,
    pub cols: Vec<i64>,
    pub boundary: Boundary,
}

/// The first offset and the step of `taps` when they are consecutive (step 1 or -1, a single
/// tap taking 1) and at most [`BOX_MAX_TAPS`] long.
fn run_of(taps: &[i64]) -> Option<(i64, i64)> {
    let first = *taps.first()?;
    let step = match taps.get(1) {
        Some(&t) => t - first,
        None => 1,
    };
    let ok = taps.len() <= BOX_MAX_TAPS
        && (step == 1 || step == -1)
        && taps
            .iter()
            .enumerate()
            .all(|(i, &t)| t == first + step * i as i64);
    ok.then_some((first, step))
}

impl MinMaxBox {
    /// Whether the fused kernel takes these taps of `dtype`.
    pub(crate) fn fits(dtype: DType, rows: &[i64], cols: &[i64]) -> bool {
        minmax_dtype(dtype) && run_of(rows).is_some() && run_of(cols).is_some()
    }

    fn total(&self) -> usize {
        self.planes * self.h * self.w
    }

    /// One of the two one-axis passes (`second`: along the columns) as a [`MinMax`] call.
    fn pass(&self, second: bool) -> MinMax {
        let taps = if second {
            self.cols.iter().map(|&t| [0, 0, t]).collect()
        } else {
            self.rows.iter().map(|&t| [0, t, 0]).collect()
        };
        MinMax {
            dtype: self.dtype,
            max: self.max,
            batch: self.planes,
            n: [1, self.h, self.w],
            taps,
            heights: None,
            boundary: self.boundary,
        }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = Self::fits(self.dtype, &self.rows, &self.cols)
            && inputs.len() == 1
            && inputs[0].dtype == self.dtype
            && crate::shape::numel(inputs[0].shape) == self.total();
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the box min/max filter made for {self:?} was given {:?}",
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x1a9e_0002);
        "morph_box2".hash(&mut h);
        self.dtype.code().hash(&mut h);
        self.max.hash(&mut h);
        self.rows.hash(&mut h);
        self.cols.hash(&mut h);
        h.finish()
    }

    /// The kernel for this call's dtype, direction and taps.
    pub(crate) fn kernel(&self) -> KernelSource {
        let (y0, dy) = run_of(&self.rows).unwrap_or((0, 1));
        let (x0, dx) = run_of(&self.cols).unwrap_or((0, 1));
        let name = format!(
            "cuprite_morph_box_{}_{}_{}x{}_{:016x}",
            if self.max { "max" } else { "min" },
            self.dtype.name(),
            self.rows.len(),
            self.cols.len(),
            self.key()
        );
        let header = format!(
            "{}constexpr int MB_H = {};\nconstexpr int MB_W = {};\nconstexpr int MB_Y0 = {y0};\n\
             constexpr int MB_DY = {dy};\nconstexpr int MB_X0 = {x0};\nconstexpr int MB_DX = {dx};\n",
            type_header(self.dtype, self.max),
            self.rows.len(),
            self.cols.len(),
        );
        let text = format!(
            "{header}{}{}{}{}{}",
            Boundary::c_source(),
            include_str!("morphology_elem.cu"),
            include_str!("morphology_box.cu"),
            crate::codegen::MARKER,
            crate::codegen::entry::<MinMaxBoxArgs>(&name, &THREADS.to_string(), "morph_box2")
        );
        KernelSource::new(name, text)
    }
}

impl LibraryCall for MinMaxBox {
    fn name(&self) -> &str {
        if self.max {
            "grey_dilation"
        } else {
            "grey_erosion"
        }
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let total = self.total();
        if total == 0 {
            return Ok(());
        }
        let mut mid = HostBuf::zeroed(self.dtype, total)?;
        self.pass(false).run_cpu(inputs, &mut mid)?;
        let shape = [total];
        let layout = Layout::contiguous(&shape);
        let second = CallInput {
            buf: &mid,
            layout: &layout,
            shape: &shape,
            dtype: self.dtype,
        };
        self.pass(true).run_cpu(&[second], out)
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        let total = self.total();
        if total == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let i = |v: usize| v as i64;
        let params = MinMaxBoxArgs {
            x: ReadBuf::part(inputs[0].buf, self.dtype, inputs[0].layout.offset, total)?,
            y: WriteBuf::part(out, self.dtype, 0, total)?,
            planes: i(self.planes),
            h: i(self.h),
            w: i(self.w),
            mode: i64::from(self.boundary.code()),
            cval: as_dtype(self.dtype, self.boundary.cval()),
        };
        // One block a tile of 32 x 64 outputs, blocks striding over the tiles; about two
        // resident waves.
        let tiles = self.planes * self.h.div_ceil(32) * self.w.div_ceil(64);
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize * 2;
        let grid = tiles.clamp(1, resident.min(i32::MAX as usize)) as u32;
        let a = params.args();
        // SAFETY: `x` and `y` are `planes * h * w` elements of the dtype (ranges checked inside
        // their allocations); the kernel reads `x` only at rows and columns inside `[0, h)`
        // and `[0, w)` of a plane below `planes` (mapped by `img_map`, or the interior where
        // every read of the tile is inside) and writes `y` only at outputs inside the image.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (THREADS as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}
