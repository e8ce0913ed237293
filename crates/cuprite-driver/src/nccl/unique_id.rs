//! [`UniqueId`]: what the ranks of one communicator share.

use super::library::check;
use crate::error::{Error, Result};
use cuprite_sys::nccl as sys;
use std::fmt;

/// The identifier that the ranks of one communicator share (`ncclUniqueId`, 128 bytes).
///
/// Made once (by rank 0) with [`UniqueId::new`], sent to the other ranks as bytes
/// ([`as_bytes`](Self::as_bytes) / [`from_bytes`](Self::from_bytes)) — over the
/// [`rendezvous`], MPI, a file — and handed to [`Comm::init_rank`] by every rank.
///
/// ```
/// use cuprite_driver::nccl::UniqueId;
/// let bytes = [7u8; 128];
/// let id = UniqueId::from_bytes(&bytes).unwrap();
/// assert_eq!(id.as_bytes(), &bytes);
/// assert!(UniqueId::from_bytes(&bytes[..100]).is_err());
/// ```
///
/// [`rendezvous`]: super::rendezvous
/// [`Comm::init_rank`]: super::Comm::init_rank
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId(pub(super) sys::ncclUniqueId);

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The id carries an address: show only a short fingerprint.
        let h = self
            .0
            .internal
            .iter()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
            });
        write!(f, "UniqueId({h:016x})")
    }
}

impl UniqueId {
    /// Bytes in an id.
    pub const BYTES: usize = sys::NCCL_UNIQUE_ID_BYTES;

    /// A new id (`ncclGetUniqueId`): NCCL opens its bootstrap listener on this host, so the
    /// process that makes it must take part (as a rank) in the communicator.
    pub fn new() -> Result<UniqueId> {
        let mut id = sys::ncclUniqueId {
            internal: [0; Self::BYTES],
        };
        // SAFETY: `id` is a valid out-pointer of the right size.
        let r = unsafe { sys::ncclGetUniqueId(&mut id) };
        check(r, "ncclGetUniqueId", None)?;
        Ok(UniqueId(id))
    }

    /// The id's 128 bytes.
    pub fn as_bytes(&self) -> &[u8; Self::BYTES] {
        &self.0.internal
    }

    /// The id from its bytes: `Err` unless exactly [`BYTES`](Self::BYTES) are given.
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId> {
        let internal: [u8; Self::BYTES] = bytes.try_into().map_err(|_| {
            Error::InvalidArgument(format!(
                "an NCCL unique id is {} bytes, got {}",
                Self::BYTES,
                bytes.len()
            ))
        })?;
        Ok(UniqueId(sys::ncclUniqueId { internal }))
    }
}
