// DSV4_UNROLL: asks the device compiler to unroll the loop that follows (`#pragma unroll`); nothing on the sim,
// where g++ would warn on the unknown pragma and the loop runs on fibers anyway.
#pragma once

#if defined(DSV4_BACKEND_SIM)
#define DSV4_UNROLL
#else
#define DSV4_UNROLL _Pragma("unroll")
#endif
