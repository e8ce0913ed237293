//! The element-wise half of a GELU layer's backward pass as one library call: from the
//! (scaled) product `P` that brings the output's gradient back and the pre-activation `Z`,
//! `g = P ⊙ gelu'(Z)` rounded to the element type and the column sums of that rounded `g` (the
//! bias gradient), reading `P` and `Z` once and writing `g` once
//! ([`super::matmul_gelu_grad`]). With `deriv` off, the call only sums the columns of its one
//! input. The CUDA reductions take that sums form for a sum over the leading axis of one
//! realised f16, bf16 or f32 matrix of at least [`MIN_PLAIN_ROWS`] rows ([`plain_column_sums`],
//! [`column_sums`]; `CUPRITE_ARRAY_COLUMN_SUMS=0` leaves them to the reductions' column form),
//! which is how `matmul_gelu_grad`'s default path (cuBLASLt's `DGELU` epilogue) sums its bias
//! gradient; the fused pass is opt-in ([`super::set_gelu_grad_fused`]).
//!
//! On CUDA two kernels of `gelu_grad.cu`: the first has each block take a group of columns
//! (16-byte vectors of them a thread where the rows and buffers allow it) over a chunk of the
//! rows and write the chunk's column sums in `f32` to a scratch buffer; the second adds a
//! column's chunk sums in a fixed order. The CPU twin computes `g` in `f64`, rounds it once,
//! and sums the rounded values in `f64`.

use super::gemm::{gelu_grad, narrow_f64, widen_f64};
use crate::codegen::{
    Helpers, KernelParams, KernelSource, MaybeRead, MaybeWrite, ReadBuf, WriteBuf, entry,
    kernel_params,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, Instr, LibraryCall, Program, Step};
use crate::op::ReduceOp;
use crate::shape::{Layout, numel};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};

/// The kernels' bodies.
const BODY: &str = include_str!("gelu_grad.cu");

/// Lanes (column groups) of a block of the first kernel.
const TX: u32 = 32;
/// Lane rows of a block of the first kernel.
const RY: u32 = 8;
/// Threads of a block of either kernel (the finishing one: 32 columns by `GG_FINISH_ROWS` = 8
/// rows of chunks).
const THREADS: u32 = TX * RY;
/// Bytes a thread loads at once where the rows and buffers are aligned to them.
const VEC_BYTES: usize = 16;
/// The fewest rows a thread of the first kernel takes where the rows are split into chunks.
const MIN_ROWS_PER_THREAD: usize = 4;
/// The fewest rows of a plain column sum that takes these kernels ([`plain_column_sums`]):
/// shorter columns stay with the reductions' one-launch column form.
const MIN_PLAIN_ROWS: usize = 64;
/// The most chunks (the grid's second dimension).
const MAX_CHUNKS: usize = 65_535;

kernel_params! {
    /// The first kernel: column sums over chunk `blockIdx.y` of the rows into `part`
    /// (`chunks × cols` `f32`), and with `deriv`, `g = prod ⊙ gelu'(pre)` (`rows × cols` each).
    struct PartArgs<'a> {
        prod: ReadBuf<'a> as "void",
        pre: MaybeRead<'a> as "void",
        g: MaybeWrite<'a> as "void",
        part: WriteBuf<'a> as "float",
        rows: i64,
        cols: i64,
        chunks: i64,
    }
}

kernel_params! {
    /// The second kernel: `db[c]` (`cols` elements) as the sum of `part[·][c]` in chunk order.
    struct FinishArgs<'a> {
        part: ReadBuf<'a> as "float",
        db: WriteBuf<'a> as "void",
        cols: i64,
        chunks: i64,
    }
}

/// `rows × cols` row-major matrices of `dtype` (f16, bf16 or f32): with `deriv`, inputs `P`
/// and `Z` and output `g` (`rows · cols`) followed by its column sums (`cols`); without, input
/// `g` and output its column sums (`cols`).
#[derive(Debug)]
pub(crate) struct GeluGradRows {
    pub dtype: DType,
    pub rows: usize,
    pub cols: usize,
    pub deriv: bool,
}

/// The element traits of `gelu_grad.cu` for `dtype`.
fn traits(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "GgF16",
        DType::BF16 => "GgBF16",
        _ => "GgF32",
    }
}

/// One first-kernel variant: element type, columns a thread, whether it multiplies by `gelu'`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Form {
    dtype: DType,
    lanes: usize,
    deriv: bool,
}

impl Form {
    /// Whether `gelu'` takes the fast exponential form of tanh: the half types only, whose
    /// rounding is far coarser than its error.
    fn fast(self) -> bool {
        matches!(self.dtype, DType::F16 | DType::BF16)
    }

    fn name(self) -> String {
        format!(
            "cuprite_gelu_grad_{}_{}_l{}",
            self.dtype,
            if self.deriv { "deriv" } else { "sums" },
            self.lanes
        )
    }

    fn key(self) -> u64 {
        let mut h = KeyHasher(0x6e1a_94d3);
        "gelu_grad_part".hash(&mut h);
        self.hash(&mut h);
        h.finish()
    }

    fn source(self) -> KernelSource {
        let name = self.name();
        let body = format!(
            "gelu_grad_part<{}, {}, {TX}, {RY}, {}, {}>",
            traits(self.dtype),
            self.lanes,
            u8::from(self.deriv),
            u8::from(self.fast())
        );
        let text = format!(
            "{BODY}{}",
            entry::<PartArgs>(&name, &THREADS.to_string(), &body)
        );
        KernelSource::generated(name, &text, Helpers::of_dtype(DType::F16))
    }
}

/// The finishing kernel of `dtype`.
fn finish_name(dtype: DType) -> String {
    format!("cuprite_gelu_grad_finish_{dtype}")
}

fn finish_key(dtype: DType) -> u64 {
    let mut h = KeyHasher(0x6e1a_94d4);
    "gelu_grad_finish".hash(&mut h);
    dtype.hash(&mut h);
    h.finish()
}

fn finish_source(dtype: DType) -> KernelSource {
    let name = finish_name(dtype);
    let body = format!("gelu_grad_finish<{}>", traits(dtype));
    let text = format!(
        "{BODY}{}",
        entry::<FinishArgs>(&name, &THREADS.to_string(), &body)
    );
    KernelSource::generated(name, &text, Helpers::of_dtype(DType::F16))
}

impl GeluGradRows {
    fn plane(&self) -> usize {
        self.rows * self.cols
    }

    /// Elements of the output.
    pub(crate) fn out_len(&self) -> usize {
        if self.deriv {
            self.plane() + self.cols
        } else {
            self.cols
        }
    }

    fn n_inputs(&self) -> usize {
        if self.deriv { 2 } else { 1 }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>], out_len: usize) -> Result<()> {
        let ok = matches!(self.dtype, DType::F16 | DType::BF16 | DType::F32)
            && inputs.len() == self.n_inputs()
            && inputs.iter().all(|x| {
                x.dtype == self.dtype
                    && numel(x.shape) == self.plane()
                    && x.layout.is_contiguous(x.shape)
            })
            && out_len == self.out_len();
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "gelu_grad made for {} × {} {} ({}) was given {:?} and an output of {out_len}",
                self.rows,
                self.cols,
                self.dtype,
                if self.deriv { "derivative" } else { "sums" },
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// Columns a thread takes: a 16-byte vector of them where `cols` is a multiple of it and
    /// every buffer address (`ptrs`) is 16-byte aligned (then so is every row), else one.
    fn lanes(&self, ptrs: &[u64]) -> usize {
        let v = VEC_BYTES / self.dtype.size();
        if self.cols % v == 0 && ptrs.iter().all(|p| p % VEC_BYTES as u64 == 0) {
            v
        } else {
            1
        }
    }

    /// Chunks of the rows: enough blocks to fill the device once (`resident` blocks at a
    /// time) over the column groups, each thread taking at least [`MIN_ROWS_PER_THREAD`]
    /// rows. Decided from the sizes and the kernel only.
    fn chunks(&self, groups: usize, resident: usize) -> usize {
        let most = self
            .rows
            .div_ceil(RY as usize * MIN_ROWS_PER_THREAD)
            .clamp(1, MAX_CHUNKS);
        (resident / groups.max(1)).clamp(1, most)
    }

    /// Enqueues the two kernels on the lane's stream: `prod` (and with `deriv`, `pre`) are
    /// a buffer and the element offset of a `rows × cols` row-major matrix in it; `out` holds
    /// [`out_len`](Self::out_len) elements (`g` then the sums, or the sums).
    fn launch(
        &self,
        lane: &CudaLane<'_>,
        (src, src_at): (&DevBuf, usize),
        pre: Option<(&DevBuf, usize)>,
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let (rows, cols) = (self.rows, self.cols);
        if !matches!(self.dtype, DType::F16 | DType::BF16 | DType::F32)
            || self.deriv != pre.is_some()
            || out.len() != self.out_len()
        {
            return Err(Error::InvalidArgument(format!(
                "gelu_grad made for {rows} × {cols} {} (derivative {}) was given the \
                 pre-activation: {}, an output of {}",
                self.dtype,
                self.deriv,
                pre.is_some(),
                out.len()
            )));
        }
        if cols == 0 {
            return Ok(());
        }
        if rows == 0 {
            // No rows: the sums are zeros (and g is empty).
            if let Some(b) = out.buffer_mut() {
                stream.memset_zeros(b)?;
            }
            return Ok(());
        }
        let plane = self.plane();
        let size = self.dtype.size();
        let mut ptrs = vec![src.ptr() + (src_at * size) as u64, out.ptr()];
        if let Some((b, o)) = pre {
            ptrs.push(b.ptr() + (o * size) as u64);
        }
        let form = Form {
            dtype: self.dtype,
            lanes: self.lanes(&ptrs),
            deriv: self.deriv,
        };
        let k = crate::jit::library_kernel(st, form.key(), || form.source())?;
        let fin =
            crate::jit::library_kernel(st, finish_key(self.dtype), || finish_source(self.dtype))?;
        let groups = cols.div_ceil(TX as usize * form.lanes);
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let chunks = self.chunks(groups, resident);
        // SAFETY: every one of the `chunks · cols` partials is written by the first kernel
        // (block (x, y) writes columns x·TX·lanes.. of chunk y that lie below `cols`, and the
        // blocks cover every column and chunk) before the second reads any.
        let part = unsafe { DevBuf::alloc(st, stream, DType::F32, chunks * cols) }?;
        let prod = ReadBuf::part(src, self.dtype, src_at, plane)?;
        let (pre, g, db) = match pre {
            Some((b, o)) => (
                Some(ReadBuf::part(b, self.dtype, o, plane)?),
                Some(WriteBuf::part(out, self.dtype, 0, plane)?),
                WriteBuf::part(out, self.dtype, plane, cols)?,
            ),
            None => (None, None, WriteBuf::part(out, self.dtype, 0, cols)?),
        };
        let args = PartArgs {
            prod,
            pre,
            g,
            part: WriteBuf::all(&part)?,
            rows: rows as i64,
            cols: cols as i64,
            chunks: chunks as i64,
        }
        .args();
        // SAFETY: the words are `PartArgs` in the entry point's order. `prod` (and with
        // `deriv`, `pre` and `g`) hold the `rows · cols` elements the kernel reads (writes),
        // `part` the `chunks · cols` partials; every access is to row `r < rows`, column
        // `c < cols` (a thread's vector of `lanes` columns starts below `cols`, a multiple of
        // `lanes`), at index `r · cols + c`, and vectors are used only where every base address
        // is 16-byte aligned (`lanes`). The grid has `groups` × `chunks` blocks of `THREADS`
        // threads, `chunks` at most 65535.
        unsafe {
            stream.launch_packed(
                &k.func,
                (groups as u32, chunks as u32, 1),
                (THREADS, 1, 1),
                0,
                &args.words,
                &args.accesses(),
            )
        }?;
        let args = FinishArgs {
            part: ReadBuf::all(&part)?,
            db,
            cols: cols as i64,
            chunks: chunks as i64,
        }
        .args();
        // SAFETY: the words are `FinishArgs` in the entry point's order: `part` holds the
        // `chunks · cols` partials the first kernel wrote (same stream, so after it) and `db`
        // the `cols` sums; block `b` reads and writes only columns `32·b + lane < cols`.
        unsafe {
            stream.launch_packed(
                &fin.func,
                (cols.div_ceil(32) as u32, 1, 1),
                (THREADS, 1, 1),
                0,
                &args.words,
                &args.accesses(),
            )
        }?;
        Ok(())
    }

    fn forms(&self) -> Vec<Form> {
        let v = VEC_BYTES / self.dtype.size();
        let mut f = vec![Form {
            dtype: self.dtype,
            lanes: 1,
            deriv: self.deriv,
        }];
        if self.cols % v == 0 {
            f.push(Form {
                dtype: self.dtype,
                lanes: v,
                deriv: self.deriv,
            });
        }
        f
    }
}

/// The column sums of the `rows × cols` row-major matrix at element `at` of `src` that `call`
/// (the sums form, see [`plain_column_sums`]) describes, summed in `f32` and rounded once into
/// `out` (`cols` elements) on the lane's stream. The order of the additions depends on the
/// sizes and the kernel only.
pub(crate) fn column_sums(
    lane: &CudaLane<'_>,
    call: &GeluGradRows,
    src: (&DevBuf, usize),
    out: &mut DevBuf,
) -> Result<()> {
    call.launch(lane, src, None, out)
}

/// Whether the CUDA reductions hand the sums [`plain_column_sums`] finds to these kernels: on
/// unless `CUPRITE_ARRAY_COLUMN_SUMS=0` (read once), which leaves them to the reductions' own
/// column form.
pub(crate) fn column_sums_on() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("CUPRITE_ARRAY_COLUMN_SUMS").map_or(true, |v| v != "0"))
}

/// The column sums [`column_sums`] computes for a reduction of `p`'s output by `op` in rows of
/// `inner` elements (`outer` of them) into `out_d`, where it is one: the sum over the leading
/// axis of one realised f16, bf16 or f32 matrix read as it lies (`p` loads its only input and
/// nothing else; the input is `inner × outer` row-major, at least [`MIN_PLAIN_ROWS`] rows of
/// 2 columns, its sums of its own type). Returns the call of the sums form (`inner` rows of `outer` columns).
pub(crate) fn plain_column_sums(
    p: &Program,
    op: ReduceOp,
    (outer, inner): (usize, usize),
    out_d: DType,
) -> Option<GeluGradRows> {
    let [input] = p.inputs.as_slice() else {
        return None;
    };
    let dtype = input.dtype;
    let plain = op == ReduceOp::Sum
        && matches!(dtype, DType::F16 | DType::BF16 | DType::F32)
        && out_d == dtype
        && input.gather_len.is_none()
        && matches!(
            p.instrs.as_slice(),
            [Instr { kind: Step::Load(0), dtype: d }] if *d == dtype
        )
        && p.outputs == [0]
        && p.shape == [outer, inner]
        && outer >= 2
        && inner >= MIN_PLAIN_ROWS
        && input.layout.strides.len() == 2
        && input.layout.strides[0] == 1
        && isize::try_from(outer).is_ok_and(|o| input.layout.strides[1] == o);
    plain.then_some(GeluGradRows {
        dtype,
        rows: inner,
        cols: outer,
        deriv: false,
    })
}

impl LibraryCall for GeluGradRows {
    fn name(&self) -> &str {
        "gelu_grad"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs, out.len())?;
        let size = self.dtype.size();
        let plane = self.plane();
        let values =
            |i: usize| -> Result<Vec<f64>> {
                let x = &inputs[i];
                let start = x.layout.offset * size;
                let bytes = x.buf.bytes().get(start..start + plane * size).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "gelu_grad: an input of {} bytes holds no {plane} elements from element {}",
                    x.buf.bytes().len(),
                    x.layout.offset
                ))
            })?;
                Ok(widen_f64(self.dtype, bytes))
            };
        let dst = out.bytes_mut();
        let g = if self.deriv {
            let (p, z) = (values(0)?, values(1)?);
            let exact: Vec<f64> = p.iter().zip(&z).map(|(p, z)| p * gelu_grad(*z)).collect();
            narrow_f64(self.dtype, &exact, &mut dst[..plane * size]);
            // The sums are of the rounded values, as the kernels sum them.
            widen_f64(self.dtype, &dst[..plane * size])
        } else {
            values(0)?
        };
        let mut sums = vec![0f64; self.cols];
        for row in g.chunks_exact(self.cols.max(1)) {
            sums.iter_mut().zip(row).for_each(|(s, x)| *s += x);
        }
        let tail = if self.deriv { plane * size } else { 0 };
        narrow_f64(self.dtype, &sums, &mut dst[tail..tail + self.cols * size]);
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs, out.len())?;
        let at = |i: usize| (inputs[i].buf, inputs[i].layout.offset);
        let pre = if self.deriv { Some(at(1)) } else { None };
        self.launch(lane, at(0), pre, out)
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        let mut v: Vec<String> = self
            .forms()
            .into_iter()
            .map(|f| f.source().source)
            .collect();
        v.push(finish_source(self.dtype).source);
        v
    }

    fn accepts_view(&self, _index: usize, shape: &[usize], layout: &Layout, len: usize) -> bool {
        layout.packed_within(shape, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel the call can build names its entry point and instantiates its template.
    #[test]
    fn sources_name_their_entries() {
        for dtype in [DType::F16, DType::BF16, DType::F32] {
            for deriv in [false, true] {
                let call = GeluGradRows {
                    dtype,
                    rows: 5,
                    cols: 16,
                    deriv,
                };
                let src = call.cuda_sources(&[]);
                assert_eq!(src.len(), 3);
                for f in call.forms() {
                    let s = f.source();
                    assert!(
                        s.source
                            .contains(&format!("void __launch_bounds__(256) {}(", s.name))
                    );
                    assert!(s.source.contains(traits(dtype)));
                }
                let odd = GeluGradRows { cols: 6, ..call };
                assert_eq!(odd.forms().len(), 1);
            }
        }
    }

    /// Every variant compiles with NVRTC under the library's options (skipped without NVRTC).
    #[test]
    fn every_variant_compiles() {
        if cuprite_driver::nvrtc::version().is_err() {
            return;
        }
        let opts = [
            crate::jit::compile_options(90, true),
            crate::jit::quick_compile_options(90),
        ];
        for dtype in [DType::F16, DType::BF16, DType::F32] {
            for deriv in [false, true] {
                let call = GeluGradRows {
                    dtype,
                    rows: 5,
                    cols: 16,
                    deriv,
                };
                for src in call.cuda_sources(&[]) {
                    for o in &opts {
                        if let Err(e) = cuprite_driver::nvrtc::compile(&src, o) {
                            panic!("{dtype} deriv {deriv}: {e}\n{src}");
                        }
                    }
                }
            }
        }
    }

    /// Chunks fill the device once and give each thread at least four rows.
    #[test]
    fn chunks_fill_the_device() {
        let call = GeluGradRows {
            dtype: DType::BF16,
            rows: 4096,
            cols: 4096,
            deriv: true,
        };
        assert_eq!(call.chunks(16, 1056), 66);
        assert_eq!(call.chunks(16, 1_000_000), 128);
        assert_eq!(call.chunks(100_000, 1056), 1);
        let short = GeluGradRows { rows: 3, ..call };
        assert_eq!(short.chunks(1, 1056), 1);
    }
}
