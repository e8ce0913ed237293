//! cuDNN descriptors made from a checked [`Geometry`] for one call, each destroyed on drop.
//!
//! Descriptors are host objects: destroying one after its work was enqueued is allowed (cuDNN
//! copies what a launch needs), so each lives only as long as the call that made it.

use super::element::DnnElement;
use super::shape::{Geometry, Layout, PoolMode};
use crate::error::Result;
use cuprite_sys::cudnn::{
    self as sys, cudnnActivationDescriptor_t, cudnnActivationMode_t, cudnnConvolutionDescriptor_t,
    cudnnConvolutionMode_t, cudnnFilterDescriptor_t, cudnnMathType_t, cudnnNanPropagation_t,
    cudnnPoolingDescriptor_t, cudnnPoolingMode_t, cudnnTensorDescriptor_t, cudnnTensorFormat_t,
};
use std::ffi::c_int;

/// A tensor descriptor: data type, dimensions and strides.
pub(super) struct TensorDesc(pub cudnnTensorDescriptor_t);

impl TensorDesc {
    /// The first `nb` entries of `dims` and `strides` as a tensor of `T`.
    pub fn new<T: DnnElement>(nb: usize, dims: &[i32; 5], strides: &[i32; 5]) -> Result<Self> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cudnn!(cudnnCreateTensorDescriptor(&mut raw)) }?;
        let d = TensorDesc(raw);
        // SAFETY: a live descriptor; `dims` and `strides` hold at least `nb` (≤ 5) values.
        unsafe {
            cudnn!(cudnnSetTensorNdDescriptor(
                d.0,
                T::DATA_TYPE,
                nb as c_int,
                dims.as_ptr(),
                strides.as_ptr()
            ))
        }?;
        Ok(d)
    }

    /// The bias of a convolution of geometry `g`: `[1, K, 1, ...]`, packed in `g`'s layout
    /// (the same memory, one value per output channel, in either layout).
    pub fn bias<T: DnnElement>(g: &Geometry) -> Result<Self> {
        let mut dims = [1i32; 5];
        dims[1] = g.y_dims[1];
        Self::new::<T>(g.nb, &dims, &g.strides(&dims))
    }
}

impl Drop for TensorDesc {
    fn drop(&mut self) {
        // SAFETY: made by one create call and destroyed only here.
        let _ = unsafe { sys::cudnnDestroyTensorDescriptor(self.0) };
    }
}

/// A filter descriptor: `[K, C / groups, kernel...]` in the geometry's layout.
pub(super) struct FilterDesc(pub cudnnFilterDescriptor_t);

impl FilterDesc {
    pub fn new<T: DnnElement>(g: &Geometry) -> Result<Self> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cudnn!(cudnnCreateFilterDescriptor(&mut raw)) }?;
        let d = FilterDesc(raw);
        let format = match g.layout {
            Layout::Nchw => cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
            Layout::Nhwc => cudnnTensorFormat_t::CUDNN_TENSOR_NHWC,
        };
        // SAFETY: a live descriptor; `w_dims` holds `nb` (≤ 5) values.
        unsafe {
            cudnn!(cudnnSetFilterNdDescriptor(
                d.0,
                T::DATA_TYPE,
                format,
                g.nb as c_int,
                g.w_dims.as_ptr()
            ))
        }?;
        Ok(d)
    }
}

impl Drop for FilterDesc {
    fn drop(&mut self) {
        // SAFETY: made by one create call and destroyed only here.
        let _ = unsafe { sys::cudnnDestroyFilterDescriptor(self.0) };
    }
}

/// A convolution descriptor: cross-correlation with the geometry's padding, strides,
/// dilations and groups, accumulating in `T`'s compute type with math type `math`.
pub(super) struct ConvDesc(pub cudnnConvolutionDescriptor_t);

impl ConvDesc {
    pub fn new<T: DnnElement>(g: &Geometry, math: cudnnMathType_t) -> Result<Self> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cudnn!(cudnnCreateConvolutionDescriptor(&mut raw)) }?;
        let d = ConvDesc(raw);
        // SAFETY: a live descriptor; the arrays hold `spatial()` (2 or 3) values.
        unsafe {
            cudnn!(cudnnSetConvolutionNdDescriptor(
                d.0,
                g.spatial() as c_int,
                g.pad.as_ptr(),
                g.stride.as_ptr(),
                g.dilation.as_ptr(),
                cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION,
                T::COMPUTE_TYPE
            ))
        }?;
        // SAFETY: a live descriptor.
        unsafe { cudnn!(cudnnSetConvolutionGroupCount(d.0, g.groups)) }?;
        d.set_math(math)?;
        Ok(d)
    }

    pub fn set_math(&self, math: cudnnMathType_t) -> Result<()> {
        // SAFETY: a live descriptor.
        unsafe { cudnn!(cudnnSetConvolutionMathType(self.0, math)) }
    }
}

impl Drop for ConvDesc {
    fn drop(&mut self) {
        // SAFETY: made by one create call and destroyed only here.
        let _ = unsafe { sys::cudnnDestroyConvolutionDescriptor(self.0) };
    }
}

/// A pooling descriptor; max pooling propagates NaN.
pub(super) struct PoolDesc(pub cudnnPoolingDescriptor_t);

impl PoolDesc {
    pub fn new(g: &Geometry, mode: PoolMode) -> Result<Self> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cudnn!(cudnnCreatePoolingDescriptor(&mut raw)) }?;
        let d = PoolDesc(raw);
        let mode = match mode {
            PoolMode::Max => cudnnPoolingMode_t::CUDNN_POOLING_MAX,
            PoolMode::AvgIncludePad => {
                cudnnPoolingMode_t::CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
            }
            PoolMode::AvgExcludePad => {
                cudnnPoolingMode_t::CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING
            }
        };
        // SAFETY: a live descriptor; the arrays hold `spatial()` (2 or 3) values.
        unsafe {
            cudnn!(cudnnSetPoolingNdDescriptor(
                d.0,
                mode,
                cudnnNanPropagation_t::CUDNN_PROPAGATE_NAN,
                g.spatial() as c_int,
                g.kernel.as_ptr(),
                g.pad.as_ptr(),
                g.stride.as_ptr()
            ))
        }?;
        Ok(d)
    }
}

impl Drop for PoolDesc {
    fn drop(&mut self) {
        // SAFETY: made by one create call and destroyed only here.
        let _ = unsafe { sys::cudnnDestroyPoolingDescriptor(self.0) };
    }
}

/// An activation descriptor for the fused convolution (NaN propagates).
pub(super) struct ActDesc(pub cudnnActivationDescriptor_t);

impl ActDesc {
    pub fn new(mode: cudnnActivationMode_t) -> Result<Self> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cudnn!(cudnnCreateActivationDescriptor(&mut raw)) }?;
        let d = ActDesc(raw);
        // SAFETY: a live descriptor; the coefficient is unused by RELU and IDENTITY.
        unsafe {
            cudnn!(cudnnSetActivationDescriptor(
                d.0,
                mode,
                cudnnNanPropagation_t::CUDNN_PROPAGATE_NAN,
                0.0
            ))
        }?;
        Ok(d)
    }
}

impl Drop for ActDesc {
    fn drop(&mut self) {
        // SAFETY: made by one create call and destroyed only here.
        let _ = unsafe { sys::cudnnDestroyActivationDescriptor(self.0) };
    }
}

/// The descriptors of one convolution: `x`, `y`, the filters and the convolution itself.
pub(super) struct ConvDescs {
    pub x: TensorDesc,
    pub y: TensorDesc,
    pub w: FilterDesc,
    pub conv: ConvDesc,
}

impl ConvDescs {
    pub fn new<T: DnnElement>(g: &Geometry, math: cudnnMathType_t) -> Result<Self> {
        Ok(ConvDescs {
            x: TensorDesc::new::<T>(g.nb, &g.x_dims, &g.x_strides)?,
            y: TensorDesc::new::<T>(g.nb, &g.y_dims, &g.y_strides)?,
            w: FilterDesc::new::<T>(g)?,
            conv: ConvDesc::new::<T>(g, math)?,
        })
    }
}
