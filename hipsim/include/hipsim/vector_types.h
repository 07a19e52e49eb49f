// HIP vector types (float2/4, uint4, ...) as plain structs with make_* and element-wise operators (+ - * / with a
// vector or a scalar, compound assignment, ==). Sizes and alignments follow HIP: 2- and 4-element types are aligned
// to their size, 1- and 3-element types to the element.
#pragma once

#define HIPSIM_VEC_FIELDS1 x
#define HIPSIM_VEC_FIELDS2 x, y
#define HIPSIM_VEC_FIELDS3 x, y, z
#define HIPSIM_VEC_FIELDS4 x, y, z, w
#define HIPSIM_VEC_MAP1(F, ...) F(x, __VA_ARGS__)
#define HIPSIM_VEC_MAP2(F, ...) F(x, __VA_ARGS__), F(y, __VA_ARGS__)
#define HIPSIM_VEC_MAP3(F, ...) F(x, __VA_ARGS__), F(y, __VA_ARGS__), F(z, __VA_ARGS__)
#define HIPSIM_VEC_MAP4(F, ...) F(x, __VA_ARGS__), F(y, __VA_ARGS__), F(z, __VA_ARGS__), F(w, __VA_ARGS__)
#define HIPSIM_VEC_PARAM(c, T) T c
#define HIPSIM_VEC_BIN(c, T, op) static_cast<T>(a.c op b.c)
#define HIPSIM_VEC_SCALAR(c, T, op) static_cast<T>(a.c op s)

#define HIPSIM_VEC_OP(V, T, N, op)                                                                              \
  inline constexpr V operator op(V a, V b) { return {HIPSIM_VEC_MAP##N(HIPSIM_VEC_BIN, T, op)}; }                \
  inline constexpr V operator op(V a, T s) { return {HIPSIM_VEC_MAP##N(HIPSIM_VEC_SCALAR, T, op)}; }             \
  inline constexpr V& operator op##=(V& a, V b) { return a = a op b; }

#define HIPSIM_VEC(short_name, T, N, align)                                                                    \
  struct align short_name##N {                                                                                 \
    T HIPSIM_VEC_FIELDS##N;                                                                                    \
  };                                                                                                           \
  inline constexpr short_name##N make_##short_name##N(HIPSIM_VEC_MAP##N(HIPSIM_VEC_PARAM, T)) {                \
    return {HIPSIM_VEC_FIELDS##N};                                                                             \
  }                                                                                                            \
  HIPSIM_VEC_OP(short_name##N, T, N, +)                                                                        \
  HIPSIM_VEC_OP(short_name##N, T, N, -)                                                                        \
  HIPSIM_VEC_OP(short_name##N, T, N, *)                                                                        \
  HIPSIM_VEC_OP(short_name##N, T, N, /)                                                                        \
  inline constexpr bool operator==(short_name##N a, short_name##N b) {                                         \
    return HIPSIM_VEC_ALL##N;                                                                                  \
  }

// == over the fields.
#define HIPSIM_VEC_ALL1 (a.x == b.x)
#define HIPSIM_VEC_ALL2 (a.x == b.x && a.y == b.y)
#define HIPSIM_VEC_ALL3 (a.x == b.x && a.y == b.y && a.z == b.z)
#define HIPSIM_VEC_ALL4 (a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w)

#define HIPSIM_VEC_ALL_SIZES(short_name, T)   \
  HIPSIM_VEC(short_name, T, 1, )              \
  HIPSIM_VEC(short_name, T, 2, alignas(2 * sizeof(T))) \
  HIPSIM_VEC(short_name, T, 3, )              \
  HIPSIM_VEC(short_name, T, 4, alignas(4 * sizeof(T)))

HIPSIM_VEC_ALL_SIZES(char, char)
HIPSIM_VEC_ALL_SIZES(uchar, unsigned char)
HIPSIM_VEC_ALL_SIZES(short, short)
HIPSIM_VEC_ALL_SIZES(ushort, unsigned short)
HIPSIM_VEC_ALL_SIZES(int, int)
HIPSIM_VEC_ALL_SIZES(uint, unsigned int)
HIPSIM_VEC_ALL_SIZES(long, long)
HIPSIM_VEC_ALL_SIZES(ulong, unsigned long)
HIPSIM_VEC_ALL_SIZES(longlong, long long)
HIPSIM_VEC_ALL_SIZES(ulonglong, unsigned long long)
HIPSIM_VEC_ALL_SIZES(float, float)
HIPSIM_VEC_ALL_SIZES(double, double)
