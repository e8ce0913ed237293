//! N-dimensional arrays on the GPU (or all CPU cores), with lazy JIT fusion.
