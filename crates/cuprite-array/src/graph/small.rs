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

/// An operand of a node in [`SmallForm`]; `S` is how its storage is held (borrowed under the
/// operand's lock, or a reference count of its own).
#[derive(Clone)]
pub(crate) enum SmallOperand<S> {
    /// Contiguous data of the node's shape: its storage, offset and dtype.
    Leaf(S, usize, DType),
    /// A constant of this dtype.
    Const(Scalar, DType),
}

/// A node that is one element-wise step over contiguous leaves and constants of its shape
/// (`&a + 1.0`, `a.exp()`, `a * b`): what a warm launch can evaluate without linearising.
pub(crate) struct SmallForm<S> {
    pub step: SmallStep,
    /// One operand for a unary step or a cast, two for a binary step (the second `None` else).
    pub operands: [Option<SmallOperand<S>>; 2],
}

/// An operand of a small form while it is read: locked, or a scalar operand read without its
/// lock, or the first operand again (`&a + &a`: one lock).
enum Held<'a> {
    Locked(std::sync::MutexGuard<'a, Op>),
    Const(Scalar),
    Again,
}

impl Node {
    /// A constant `c` of `dtype` broadcast to `shape`, as the operand of one element-wise
    /// operation (an operator's scalar: `&a + 1.0`), never handed to the user. The thread's
    /// last such node is kept and made again in place once nothing else holds it, so a loop of
    /// small ops does not allocate one per call. Only a node no one else refers to is changed,
    /// and it is rewritten whole (a node someone realised since is a constant again).
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
                && n.operand_const.is_some_and(|k| scalar_bits_eq(k, c));
            if !same {
                *n = Self::made(Op::Const(c), dtype, shape.clone(), device, None);
                n.operand_const = Some(c);
            }
            last.clone()
        });
        if let Ok(Some(n)) = reused {
            return n;
        }
        let mut made = Self::made(Op::Const(c), dtype, shape.clone(), device, None);
        made.operand_const = Some(c);
        let n = Arc::new(made);
        let _ = LAST.try_with(|last| {
            if let Ok(mut last) = last.try_borrow_mut() {
                *last = Some(n.clone());
            }
        });
        n
    }

    /// This node as one step over contiguous leaves and constants, if it is one, with its own
    /// references to the leaves' storage.
    pub(crate) fn small_form(&self) -> Option<SmallForm<Arc<Storage>>> {
        self.realise_small(|form| {
            let own = |o: &Option<SmallOperand<&Arc<Storage>>>| {
                o.as_ref().map(|o| match o {
                    SmallOperand::Leaf(s, off, d) => SmallOperand::Leaf(Arc::clone(s), *off, *d),
                    SmallOperand::Const(c, d) => SmallOperand::Const(*c, *d),
                })
            };
            let [a, b] = &form.operands;
            let owned = SmallForm {
                step: form.step,
                operands: [own(a), own(b)],
            };
            (owned, None)
        })
    }

    /// Calls `f` with this node's small form, if it is one, while the node and its operands
    /// are locked (parent before child, as linearisation does; a scalar operand is read
    /// without its lock); when `f` also gives an operation, it becomes the node's under the
    /// same lock (the old one drops after the unlock). `None`: not a small form.
    pub(crate) fn realise_small<R>(
        &self,
        f: impl FnOnce(&SmallForm<&Arc<Storage>>) -> (R, Option<Op>),
    ) -> Option<R> {
        let mut g = self.op.lock().unwrap_or_else(|e| e.into_inner());
        let (step, a, b) = match &*g {
            Op::Unary(o, a) => (SmallStep::Unary(*o), a, None),
            Op::Cast(a) => (SmallStep::Cast, a, None),
            Op::Binary(o, a, b) => (SmallStep::Binary(*o), a, Some(b)),
            _ => return None,
        };
        fn hold(n: &Arc<Node>) -> Held<'_> {
            match n.operand_const {
                Some(c) => Held::Const(c),
                None => Held::Locked(n.op.lock().unwrap_or_else(|e| e.into_inner())),
            }
        }
        fn operand<'h>(
            n: &Node,
            h: &'h Held<'_>,
            shape: &Dims,
        ) -> Option<SmallOperand<&'h Arc<Storage>>> {
            match h {
                Held::Const(c) => Some(SmallOperand::Const(*c, n.dtype)),
                Held::Locked(op) => match &**op {
                    Op::Leaf(s, l) if n.shape == *shape && l.is_contiguous(shape) => {
                        Some(SmallOperand::Leaf(s, l.offset, n.dtype))
                    }
                    Op::Const(c) => Some(SmallOperand::Const(*c, n.dtype)),
                    _ => None,
                },
                Held::Again => None,
            }
        }
        let ha = hold(a);
        let hb = b.map(|b| {
            if Arc::ptr_eq(a, b) {
                Held::Again
            } else {
                hold(b)
            }
        });
        let (r, new) = {
            let oa = operand(a, &ha, &self.shape)?;
            let ob = match (b, &hb) {
                (Some(_), Some(Held::Again)) => Some(oa.clone()),
                (Some(b), Some(h)) => Some(operand(b, h, &self.shape)?),
                _ => None,
            };
            f(&SmallForm {
                step,
                operands: [Some(oa), ob],
            })
        };
        drop(hb);
        drop(ha);
        let old = new.map(|op| self.put(&mut g, op));
        drop(g);
        drop(old);
        Some(r)
    }
}
