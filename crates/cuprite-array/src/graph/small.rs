//! A node that is one element-wise step over contiguous leaves and constants of its shape
//! (`&a + 1.0`, `a.exp()`, `a * b`), read for the warm launch of a small op, and the operator
//! scalar nodes such steps take (made again in place per thread).

use super::{Node, Op, scalar_bits_eq};
use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::op::{BinaryOp, UnaryOp};
use crate::shape::Dims;
use crate::storage::Storage;
use std::sync::Arc;

/// The step of a node in [`SmallForm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SmallStep {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Cast,
}

/// An operand of a node in [`SmallForm`].
pub(crate) enum SmallOperand {
    /// Contiguous data of the node's shape: its storage, offset and dtype.
    Leaf(Arc<Storage>, usize, DType),
    /// A constant of this dtype.
    Const(Scalar, DType),
}

/// A node that is one element-wise step over contiguous leaves and constants of its shape
/// (`&a + 1.0`, `a.exp()`, `a * b`): what a warm launch can evaluate without linearising.
pub(crate) struct SmallForm {
    pub step: SmallStep,
    /// One operand for a unary step or a cast, two for a binary step (the second `None` else).
    pub operands: [Option<SmallOperand>; 2],
}

impl Node {
    /// A constant `c` of `dtype` broadcast to `shape`, as the operand of one element-wise
    /// operation (an operator's scalar: `&a + 1.0`), never handed to the user. The thread's
    /// last such node is kept and made again in place once nothing else holds it, so a loop of
    /// small ops does not allocate one per call. Only a node no one else refers to is changed,
    /// and it is rewritten whole unless it is this very constant already.
    pub(crate) fn operand_constant(
        c: Scalar,
        dtype: DType,
        shape: &Dims,
        device: Device,
    ) -> Arc<Node> {
        thread_local! {
            static LAST: std::cell::RefCell<Option<Arc<Node>>> =
                const { std::cell::RefCell::new(None) };
        }
        let reused = LAST.try_with(|last| {
            let mut last = last.try_borrow_mut().ok()?;
            let n = Arc::get_mut(last.as_mut()?)?;
            let same = n.dtype == dtype
                && n.device == device
                && n.shape == *shape
                && matches!(n.op.get_mut(), Ok(Op::Const(k)) if scalar_bits_eq(*k, c));
            if !same {
                *n = Self::made(Op::Const(c), dtype, shape.clone(), device, None);
            }
            last.clone()
        });
        if let Ok(Some(n)) = reused {
            return n;
        }
        let n = Self::new(Op::Const(c), dtype, shape.clone(), device);
        let _ = LAST.try_with(|last| {
            if let Ok(mut last) = last.try_borrow_mut() {
                *last = Some(n.clone());
            }
        });
        n
    }

    /// This node as one step over contiguous leaves and constants, if it is one (locks taken
    /// parent before child, as linearisation does).
    pub(crate) fn small_form(&self) -> Option<SmallForm> {
        let op = self.op.lock().unwrap_or_else(|e| e.into_inner());
        let operand = |n: &Arc<Node>| -> Option<SmallOperand> {
            if let Some(c) = n.unrealised_const() {
                return Some(SmallOperand::Const(c, n.dtype));
            }
            match &*n.op.lock().unwrap_or_else(|e| e.into_inner()) {
                Op::Leaf(s, l) if n.shape == self.shape && l.is_contiguous(&self.shape) => {
                    Some(SmallOperand::Leaf(s.clone(), l.offset, n.dtype))
                }
                Op::Const(c) => Some(SmallOperand::Const(*c, n.dtype)),
                _ => None,
            }
        };
        let (step, operands) = match &*op {
            Op::Unary(o, a) => (SmallStep::Unary(*o), [Some(operand(a)?), None]),
            Op::Cast(a) => (SmallStep::Cast, [Some(operand(a)?), None]),
            Op::Binary(o, a, b) => (
                SmallStep::Binary(*o),
                [Some(operand(a)?), Some(operand(b)?)],
            ),
            _ => return None,
        };
        Some(SmallForm { step, operands })
    }
}
