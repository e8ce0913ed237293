//! [`ArrayDeviceView`]: an array's memory as a tracked, read-only device view, for kernel
//! arguments; the array is locked while a view lives.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::storage::Storage;
use cuprite_driver::DeviceView;
use cuprite_driver::launch::{KernelArg, LaunchArgs};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// An array's memory as a read-only [`DeviceView`] (dereferences to one), usable as a kernel
/// argument (`.arg(&view)`, a read) and, dereferenced, wherever device memory is read
/// (`Access::read(&*view)`, copies from `&*view`): launches
/// on any stream are ordered after the array work that wrote it, and array work that later
/// frees or reuses it waits for them, by the driver layer's tracking alone.
///
/// The array is locked while the view lives ([`Array::is_locked`] is true), and unlocked again
/// when the last view of it drops unless it was locked before (with views made and dropped
/// concurrently on several threads the flag is best effort; the memory itself is always kept
/// alive by the borrow of the array).
pub struct ArrayDeviceView<'a, T> {
    view: DeviceView<'a, T>,
    storage: Arc<Storage>,
}

impl<T> std::fmt::Debug for ArrayDeviceView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrayDeviceView")
            .field("ptr", &format_args!("{:#x}", self.view.device_ptr()))
            .field("len", &self.view.len())
            .finish()
    }
}

impl<T: Element + bytemuck::Pod> Array<T> {
    /// Evaluates the array (made contiguous in place when it is a strided view) and returns
    /// its memory as a tracked read-only device view for kernel arguments; the array stays
    /// locked while the view lives. CPU-backend arrays are an `Err`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use cuprite_array::Array;
    /// let a = Array::<f32>::rand_uniform(&[1024], 1)?;
    /// let v = a.device_view()?;
    /// assert!(a.is_locked());
    /// assert_eq!(v.len(), 1024);
    /// drop(v);
    /// assert!(!a.is_locked());
    /// # Ok(()) }
    /// ```
    pub fn device_view(&self) -> Result<ArrayDeviceView<'_, T>> {
        let (s, l) = self.materialise_contiguous()?;
        let Storage::Cuda(d) = &*s else {
            unreachable!("materialise_contiguous returns CUDA storage")
        };
        let buf: *const cuprite_driver::DeviceBuffer<u8> = d.buffer()?;
        // SAFETY: the buffer lives inside `s`, an `Arc<Storage>` that this array's node holds
        // for as long as the array (borrowed for 'a) lives: a contiguous leaf is never replaced
        // (see `materialise_contiguous`) and leaves are never mutated. The view is read-only.
        let buf: &cuprite_driver::DeviceBuffer<u8> = unsafe { &*buf };
        let size = T::DTYPE.size();
        let bytes = buf
            .slice(l.offset * size..(l.offset + self.len()) * size)
            .map_err(Error::Cuda)?;
        let view = bytes.view_as::<T>().map_err(Error::Cuda)?;
        // SAFETY: as above: `view` borrows from memory that lives as long as `self` ('a).
        let view: DeviceView<'_, T> = unsafe { std::mem::transmute(view) };
        lock_for_view(&s, self);
        Ok(ArrayDeviceView { view, storage: s })
    }
}

fn lock_for_view<T: Element>(s: &Storage, a: &Array<T>) {
    let Storage::Cuda(d) = s else { return };
    if d.interop.views.fetch_add(1, Ordering::AcqRel) == 0 && !s.is_locked() {
        s.set_locked(a.device(), true);
        d.interop.view_locked.store(true, Ordering::Release);
    }
}

impl<T> Drop for ArrayDeviceView<'_, T> {
    fn drop(&mut self) {
        let Storage::Cuda(d) = &*self.storage else {
            return;
        };
        if d.interop.views.fetch_sub(1, Ordering::AcqRel) == 1
            && d.interop.view_locked.swap(false, Ordering::AcqRel)
        {
            self.storage
                .set_locked(crate::device::Device::cuda(d.ordinal()), false);
        }
    }
}

impl<'a, T> std::ops::Deref for ArrayDeviceView<'a, T> {
    type Target = DeviceView<'a, T>;
    fn deref(&self) -> &DeviceView<'a, T> {
        &self.view
    }
}

impl<'x, T> KernelArg<'x> for &'x ArrayDeviceView<'_, T> {
    #[inline(always)]
    fn push_to(self, args: &mut LaunchArgs<'x>) {
        args.push_read(&self.view);
    }
}
