//! Repeating along an axis as one copy kernel: the library call behind
//! [`Array::repeat_with`](crate::Array::repeat_with).
//!
//! Repeating axis `a` of an array `[.., A, inner..]` `reps` times folds every axis before `a`
//! into the row number: output row `J` (of `rows · reps` rows of `inner` elements) is input
//! row `J / reps`. The kernel (`repeat.cu`) moves elements as raw words, writes 16 bytes a
//! thread with one store, and divides once per thread (the other elements of the thread are
//! reached by carrying): the output is written once, the input read once. The CPU twin copies
//! the same rows.

use crate::codegen::{KernelParams, KernelSource, MARKER, ReadBuf, WriteBuf, entry, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::{Layout, numel};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// The kernels' bodies.
const BODY: &str = include_str!("repeat.cu");

/// Threads a block.
const THREADS: u32 = 256;

/// Bytes a thread writes with one store where the output is aligned to them.
const STORE_BYTES: usize = 16;

kernel_params! {
    /// `n_out` elements of `dst`, each copied from `src` (see `repeat.cu`); `rowvec` nonzero
    /// where each thread's elements lie in one row and the input is aligned for one load.
    struct RepeatArgs<'a> {
        src: ReadBuf<'a> as "WordT",
        dst: WriteBuf<'a> as "WordT",
        n_out: i64,
        inner: i64,
        reps: i64,
        rowvec: i64,
    }
}

/// `rows` rows of `inner` elements of `dtype` (input 0, contiguous), each written `reps`
/// times in a row: the output holds `rows · reps · inner` elements.
#[derive(Debug)]
pub(crate) struct RepeatRows {
    pub dtype: DType,
    pub rows: usize,
    pub inner: usize,
    pub reps: usize,
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

/// One kernel variant: element size in bytes, elements a thread stores at once, and whether
/// indices are 32-bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Form {
    size: usize,
    lanes: usize,
    narrow: bool,
}

impl Form {
    fn name(self) -> String {
        format!(
            "cuprite_repeat_w{}_l{}_{}",
            self.size,
            self.lanes,
            if self.narrow { "i32" } else { "i64" }
        )
    }

    fn key(self) -> u64 {
        let mut h = KeyHasher(0x7e9e_a700);
        "repeat".hash(&mut h);
        self.hash(&mut h);
        h.finish()
    }

    fn source(self) -> KernelSource {
        let name = self.name();
        let idx = if self.narrow {
            "unsigned int"
        } else {
            "unsigned long long"
        };
        let text = format!(
            "typedef unsigned long long u64t;\ntypedef long long i64t;\ntypedef {} WordT;\n\
             typedef {idx} IdxT;\nconstexpr int LANES = {};\n{BODY}{MARKER}{}",
            word(self.size),
            self.lanes,
            entry::<RepeatArgs>(&name, &THREADS.to_string(), "repeat_rows")
        );
        KernelSource::new(name, text)
    }
}

impl RepeatRows {
    fn n_in(&self) -> usize {
        self.rows * self.inner
    }

    fn n_out(&self) -> usize {
        self.rows * self.reps * self.inner
    }

    /// Whether 32-bit indices serve: every index, and the first thread's index past the end
    /// after a whole grid's stride, below 2^32.
    fn narrow(&self) -> bool {
        self.n_out() < (1usize << 31)
    }

    /// Elements a thread stores at once: 16 bytes of them (at least one element).
    fn lanes(&self) -> usize {
        (STORE_BYTES / self.dtype.size()).max(1)
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = inputs.len() == 1
            && inputs[0].dtype == self.dtype
            && numel(inputs[0].shape) == self.n_in()
            && inputs[0].layout.is_contiguous(inputs[0].shape)
            && self.reps > 0;
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "repeat made for {} rows of {} {} elements ({} times) was given {:?}",
                self.rows,
                self.inner,
                self.dtype,
                self.reps,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// Every kernel the call may build (both store widths, for the output's alignment).
    fn forms(&self) -> Vec<Form> {
        let (size, narrow) = (self.dtype.size(), self.narrow());
        let mut v = vec![Form {
            size,
            lanes: self.lanes(),
            narrow,
        }];
        if self.lanes() > 1 {
            v.push(Form {
                size,
                lanes: 1,
                narrow,
            });
        }
        v
    }
}

impl LibraryCall for RepeatRows {
    fn name(&self) -> &str {
        "repeat"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let size = self.dtype.size();
        let row = self.inner * size;
        if self.n_out() == 0 {
            return Ok(());
        }
        let x = inputs[0].buf.bytes();
        let start = inputs[0].layout.offset * size;
        let src = x.get(start..start + self.n_in() * size).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "repeat: an input of {} bytes holds no {} elements from element {}",
                x.len(),
                self.n_in(),
                inputs[0].layout.offset
            ))
        })?;
        // Blocks of whole rows, about 64 KiB each, copied in parallel.
        let per = (65536 / row).max(1);
        let reps = self.reps;
        out.bytes_mut()[..self.n_out() * size]
            .par_chunks_mut(per * row)
            .enumerate()
            .for_each(|(b, blk)| {
                for (i, o) in blk.chunks_mut(row).enumerate() {
                    let s = (b * per + i) / reps * row;
                    o.copy_from_slice(&src[s..s + row]);
                }
            });
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        let n_out = self.n_out();
        if n_out == 0 {
            return Ok(());
        }
        let size = self.dtype.size();
        let x = &inputs[0];
        let src = ReadBuf::part(x.buf, self.dtype, x.layout.offset, self.n_in())?;
        let dst = WriteBuf::part(out, self.dtype, 0, n_out)?;
        let aligned = |ptr: u64| ptr % STORE_BYTES as u64 == 0;
        // Wide stores need the output aligned to them (new buffers are).
        let lanes = if aligned(out.ptr()) { self.lanes() } else { 1 };
        let in_ptr = x.buf.ptr() + (x.layout.offset * size) as u64;
        let rowvec = lanes > 1 && self.inner % lanes == 0 && aligned(in_ptr);
        let form = Form {
            size,
            lanes,
            narrow: self.narrow(),
        };
        let k = crate::jit::library_kernel(st, form.key(), || form.source())?;
        let args = RepeatArgs {
            src,
            dst,
            n_out: n_out as i64,
            inner: self.inner as i64,
            reps: self.reps as i64,
            rowvec: rowvec as i64,
        }
        .args();
        let groups = n_out.div_ceil(lanes);
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize * 8;
        let grid = groups.div_ceil(THREADS as usize).clamp(1, resident) as u32;
        // SAFETY: the words are `RepeatArgs` in the entry point's order: `src` holds the
        // `rows · inner` input elements and `dst` the `n_out` output elements (both ranges
        // checked inside their buffers, declared read and written). The kernel reads input
        // element `(t / inner / reps) · inner + t % inner < rows · inner` for each output
        // element `t < n_out`, and writes only those; wide stores and loads are made only
        // where their addresses are 16-byte aligned (`lanes`, `rowvec` above), and the
        // grid's stride past the last index fits `IdxT` (`narrow`).
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (THREADS, 1, 1),
                0,
                &args.words,
                &args.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        self.forms()
            .into_iter()
            .map(|f| f.source().source)
            .collect()
    }

    fn accepts_view(&self, index: usize, shape: &[usize], layout: &Layout, len: usize) -> bool {
        index == 0 && layout.packed_within(shape, len)
    }
}
