//! The warm path of a small op. A node that is one element-wise step over contiguous leaves and
//! constants of its shape (`&a + 1.0`, `a.exp()`, `&a * &b`) is launched without linearising
//! it: the first evaluation of each such form goes the general way (program, kernel cache,
//! parameter plan) and notes, per thread, the kernel it launched and where each of its argument
//! words came from; later evaluations of the same form fill the words from the node's operands
//! and launch.
//!
//! A form is noted only when the general path's program read the operands exactly as this path
//! reads them (inputs and constants in operand order, the same variant), so a launch from a
//! note is the launch the general path would have made. A note whose kernel the kernel map
//! has let go of (replaced by its optimised build, or cleared) is not used: the form is noted
//! again.

use super::elementwise::{
    Capture, aligned, alloc, blocks_for, dev_of, run_elementwise, vector_allowed,
};
use crate::codegen::BLOCK;
use crate::codegen::{Variant, WordFrom, const_words, word_sources};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::graph::small::{SmallOperand, SmallStep};
use crate::graph::{Node, Program};
use crate::jit::Kernel;
use crate::runtime::{DeviceState, state, stream_of};
use crate::shape::numel;
use crate::stats::Phase;
use crate::storage::{DevBuf, Storage};
use crate::util::Inline;
use cuprite_driver::{Access, Stream};
use std::cell::RefCell;
use std::mem::Discriminant;
use std::sync::Arc;

/// What a note knows of one operand: a leaf of this dtype, or a constant of this dtype and
/// kind of value.
#[derive(Clone, Copy, PartialEq, Eq)]
struct OperandKey {
    dtype: DType,
    constant: Option<Discriminant<Scalar>>,
}

/// Everything the program of a small form depends on besides its data.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    ordinal: usize,
    step: SmallStep,
    out: DType,
    ndim: usize,
    operands: [Option<OperandKey>; 2],
    /// The two operands are one input (same storage, offset and dtype).
    same_input: bool,
    variant: Variant,
}

/// One noted form: its kernel and the sources of its argument words.
struct Note {
    key: Key,
    kernel: Arc<Kernel>,
    words: Inline<WordFrom, 24>,
}

/// Forms noted per thread, replaced in turn once full.
const NOTES: usize = 8;

struct Notes {
    notes: Vec<Note>,
    next: usize,
}

thread_local! {
    static NOTED: RefCell<Notes> = const { RefCell::new(Notes { notes: Vec::new(), next: 0 }) };
}

/// Evaluates `node` on CUDA device `ordinal` if it has a small form (see the module docs);
/// `None` when it has not.
pub(super) fn eval_small(ordinal: usize, node: &Arc<Node>) -> Result<Option<Arc<Storage>>> {
    let len = numel(&node.shape);
    if len == 0 {
        return Ok(None);
    }
    let Some(form) = node.small_form() else {
        return Ok(None);
    };
    // The inputs (leaf operands; one when both are the same data) and constants, in operand
    // order, as linearisation numbers them.
    let mut ins: Inline<(&DevBuf, usize, DType), 2> = Inline::new();
    let mut consts: Inline<Scalar, 2> = Inline::new();
    let mut operands = [None; 2];
    let mut same_input = false;
    for (slot, o) in form.operands.iter().enumerate() {
        operands[slot] = match o {
            None => None,
            Some(SmallOperand::Leaf(s, off, dtype)) => {
                let b = dev_of(s, ordinal)?;
                match ins.first() {
                    Some(&(b0, off0, d0))
                        if std::ptr::eq(b0, b) && off0 == *off && d0 == *dtype =>
                    {
                        same_input = true
                    }
                    _ => ins.push((b, *off, *dtype)),
                }
                Some(OperandKey {
                    dtype: *dtype,
                    constant: None,
                })
            }
            Some(SmallOperand::Const(c, dtype)) => {
                consts.push(*c);
                Some(OperandKey {
                    dtype: *dtype,
                    constant: Some(std::mem::discriminant(c)),
                })
            }
        };
    }
    if ins.is_empty() {
        // Constants only: linearisation may merge equal ones; left to the general path.
        return Ok(None);
    }
    crate::stats::phase_end(Phase::Build);
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    // SAFETY: the output is fully written by the launch below before anything reads it.
    let out_storage = match unsafe { crate::storage::take_parked(ordinal, node.dtype, len) } {
        Some(s) => s,
        None => Arc::new(Storage::Cuda(alloc(st, stream, node.dtype, len)?)),
    };
    let out = dev_of(&out_storage, ordinal)?;
    crate::stats::phase_end(Phase::Buffer);
    // The variant the general path would choose (`run_elementwise`): every input contiguous.
    let lim = i32::MAX as usize;
    let idx32 = len < lim
        && ins
            .iter()
            .all(|&(_, off, _)| off.checked_add(len - 1).is_some_and(|hi| hi < lim));
    let vector = vector_allowed()
        && !node.shape.is_empty()
        && ins
            .iter()
            .all(|&(b, off, dtype)| aligned(b.ptr(), off, dtype.size()))
        && aligned(out.ptr(), 0, node.dtype.size());
    let variant = Variant {
        idx32,
        vector,
        strided_out: false,
    };
    let key = Key {
        ordinal,
        step: form.step,
        out: node.dtype,
        ndim: node.shape.len(),
        operands,
        same_input,
        variant,
    };
    // Launched from the note while it is borrowed (no reference count touched): the launch
    // does not come back here.
    let launched = NOTED.with(|n| {
        let n = n.try_borrow().ok()?;
        let note = n
            .notes
            .iter()
            .find(|e| e.key == key && !e.kernel.is_retired())?;
        let mut words = [0u64; WORDS];
        let count = fill(
            &mut words,
            &note.words,
            &ins,
            &consts,
            out.ptr(),
            len,
            &node.shape,
        )?;
        crate::stats::phase_end(Phase::Lookup);
        let k = &note.kernel;
        crate::jit::note_kernel_use(k);
        let grid = blocks_for(len, vector && !k.scalar);
        let r = launch_noted(st, stream, k, grid, &words[..count], &ins, out);
        crate::stats::phase_end(Phase::Launch);
        crate::stats::note_launch(&k.func, &words[..count], grid);
        Some(r)
    });
    if let Some(r) = launched {
        r?;
        crate::stats::note_small_launch();
        return Ok(Some(out_storage));
    }
    // Not noted yet: the general path, which tells what it launched.
    let mut cap = Capture {
        kernel: None,
        variant,
    };
    let sources = Program::with_built(std::slice::from_ref(node), |p| {
        run_elementwise(st, ordinal, stream, p, &[out], None, Some(&mut cap))?;
        Ok::<_, crate::error::Error>(
            reads_as_noted(p, node, &ins, &consts)
                .then(|| word_sources(p, variant))
                .flatten(),
        )
    })?;
    if let (Some(words), Some(kernel)) = (sources, cap.kernel) {
        if cap.variant == variant && kernel.interp.is_none() {
            NOTED.with(|n| {
                let Ok(mut n) = n.try_borrow_mut() else {
                    return;
                };
                let note = Note { key, kernel, words };
                if let Some(e) = n.notes.iter_mut().find(|e| e.key == key) {
                    *e = note;
                } else if n.notes.len() < NOTES {
                    n.notes.push(note);
                } else {
                    let at = n.next % NOTES;
                    n.next = at + 1;
                    n.notes[at] = note;
                }
            });
        }
    }
    Ok(Some(out_storage))
}

/// Whether program `p` (of `node`) reads exactly `ins` as its inputs and `consts` as its
/// constants, in this order, into one output of the node's shape.
fn reads_as_noted(
    p: &Program,
    node: &Node,
    ins: &[(&DevBuf, usize, DType)],
    consts: &[Scalar],
) -> bool {
    p.outputs.len() == 1
        && node.shape == p.shape
        && p.inputs.len() == ins.len()
        && p.inputs.iter().zip(ins).all(|(i, &(b, off, dtype))| {
            matches!(&*i.storage, Storage::Cuda(d) if std::ptr::eq(d, b))
                && i.layout.offset == off
                && i.dtype == dtype
                && i.gather_len.is_none()
        })
        && p.consts.len() == consts.len()
        && p.consts.iter().zip(consts).all(|(a, b)| {
            std::mem::discriminant(a) == std::mem::discriminant(b)
                && const_words(*a).eq(const_words(*b))
        })
}

/// The most argument words a noted launch fills (a note's word list is as long at most).
const WORDS: usize = 24;

/// Fills `words` from their `sources` and returns how many there are; `None` if a source names
/// an input, constant or axis that is not there.
fn fill(
    words: &mut [u64; WORDS],
    sources: &[WordFrom],
    ins: &[(&DevBuf, usize, DType)],
    consts: &[Scalar],
    out: u64,
    len: usize,
    shape: &[usize],
) -> Option<usize> {
    if sources.len() > WORDS {
        return None;
    }
    for (w, from) in words.iter_mut().zip(sources) {
        *w = match *from {
            WordFrom::In(i) => ins.get(i)?.0.ptr(),
            WordFrom::Offset(i) => ins.get(i)?.1 as u64,
            WordFrom::Out => out,
            WordFrom::Len => len as u64,
            WordFrom::Extent(d) => *shape.get(d)? as u64,
            WordFrom::Const(k, part) => const_words(*consts.get(k)?).nth(part).unwrap_or(0),
        };
    }
    Some(sources.len())
}

/// Launches noted kernel `k` with its `words`, declaring the inputs `ins` (at most two) read
/// and `out` written, the accesses on the stack.
fn launch_noted(
    st: &DeviceState,
    stream: &Arc<Stream>,
    k: &Kernel,
    grid: u32,
    words: &[u64],
    ins: &[(&DevBuf, usize, DType)],
    out: &DevBuf,
) -> Result<()> {
    let n = ins.len();
    if n > 2 {
        return Err(Error::InvalidArgument(format!(
            "a small op reads at most 2 inputs, not {n}"
        )));
    }
    let gone = || Error::InvalidArgument("a buffer of a small op has no allocation".into());
    let mut acc = [Access::write(out.live().ok_or_else(gone)?); 3];
    for (slot, &(b, _, _)) in acc.iter_mut().zip(ins) {
        *slot = Access::read(b.live().ok_or_else(gone)?);
    }
    // SAFETY: the words are the noted kernel's parameters in order, filled from the sources the
    // general path's parameter plan gave for this form (checked equal to the program's reads
    // when the form was noted); the addresses among them are the inputs' and the output's
    // buffers, declared in `acc` (reads first, then the write at `n`), alive until the kernel
    // has run (frees are stream-ordered after the declared accesses).
    unsafe {
        crate::jit::launch_packed(
            st,
            stream,
            k,
            (grid, 1, 1),
            (BLOCK, 1, 1),
            0,
            words,
            &acc[..=n],
        )
    }?;
    Ok(())
}
