// Metadata value decoding and type-checked access.
#include "metadata.h"

#include "error.h"

#include <cstring>
#include <limits>

namespace llmc::rt {

uint32_t meta_scalar_size(llmc_meta_type type) {
  switch (type) {
  case LLMC_META_UINT8:
  case LLMC_META_INT8:
  case LLMC_META_BOOL:
    return 1;
  case LLMC_META_UINT16:
  case LLMC_META_INT16:
    return 2;
  case LLMC_META_UINT32:
  case LLMC_META_INT32:
  case LLMC_META_FLOAT32:
    return 4;
  case LLMC_META_UINT64:
  case LLMC_META_INT64:
  case LLMC_META_FLOAT64:
    return 8;
  case LLMC_META_STRING:
  case LLMC_META_ARRAY:
    return 0;
  }
  return 0;
}

bool meta_type_valid(uint32_t type) { return type <= LLMC_META_FLOAT64; }

const char *meta_type_name(llmc_meta_type type) {
  static const char *const kNames[] = {
      "uint8", "int8",  "uint16", "int16",  "uint32", "int32", "float32",
      "bool",  "string", "array", "uint64", "int64",  "float64"};
  return meta_type_valid(type) ? kNames[type] : "invalid";
}

void meta_decode_scalar(llmc_meta_type type, const uint8_t *p, MetaValue *out) {
  out->type = type;
  switch (type) {
  case LLMC_META_UINT8:
    out->u = p[0];
    break;
  case LLMC_META_INT8:
    out->i = static_cast<int8_t>(p[0]);
    break;
  case LLMC_META_BOOL:
    out->i = p[0] != 0;
    break;
  case LLMC_META_UINT16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    out->u = v;
    break;
  }
  case LLMC_META_INT16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    out->i = v;
    break;
  }
  case LLMC_META_UINT32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    out->u = v;
    break;
  }
  case LLMC_META_INT32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    out->i = v;
    break;
  }
  case LLMC_META_FLOAT32: {
    float v;
    std::memcpy(&v, p, 4);
    out->f = v;
    break;
  }
  case LLMC_META_UINT64:
    std::memcpy(&out->u, p, 8);
    break;
  case LLMC_META_INT64:
    std::memcpy(&out->i, p, 8);
    break;
  case LLMC_META_FLOAT64:
    std::memcpy(&out->f, p, 8);
    break;
  case LLMC_META_STRING:
  case LLMC_META_ARRAY:
    break;
  }
}

namespace {
bool is_unsigned(llmc_meta_type t) {
  return t == LLMC_META_UINT8 || t == LLMC_META_UINT16 ||
         t == LLMC_META_UINT32 || t == LLMC_META_UINT64;
}
bool is_signed_or_bool(llmc_meta_type t) {
  return t == LLMC_META_INT8 || t == LLMC_META_INT16 || t == LLMC_META_INT32 ||
         t == LLMC_META_INT64 || t == LLMC_META_BOOL;
}
bool is_float(llmc_meta_type t) {
  return t == LLMC_META_FLOAT32 || t == LLMC_META_FLOAT64;
}
} // namespace

int64_t meta_as_int(const MetaValue &v, std::string_view key) {
  if (is_signed_or_bool(v.type))
    return v.i;
  if (is_unsigned(v.type)) {
    if (v.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(LLMC_ERR_OUT_OF_RANGE, "metadata '", key, "': value ", v.u,
           " does not fit in int64");
    return static_cast<int64_t>(v.u);
  }
  fail(LLMC_ERR_INVALID_ARGUMENT, "metadata '", key, "' is ",
       meta_type_name(v.type), ", not an integer");
}

double meta_as_float(const MetaValue &v, std::string_view key) {
  if (is_float(v.type))
    return v.f;
  if (is_signed_or_bool(v.type))
    return static_cast<double>(v.i);
  if (is_unsigned(v.type))
    return static_cast<double>(v.u);
  fail(LLMC_ERR_INVALID_ARGUMENT, "metadata '", key, "' is ",
       meta_type_name(v.type), ", not a number");
}

std::string_view meta_as_string(const MetaValue &v, std::string_view key) {
  if (v.type != LLMC_META_STRING)
    fail(LLMC_ERR_INVALID_ARGUMENT, "metadata '", key, "' is ",
         meta_type_name(v.type), ", not a string");
  return v.str;
}

MetaValue meta_array_element(const MetaValue &v, uint64_t index,
                             std::string_view key) {
  if (v.type != LLMC_META_ARRAY)
    fail(LLMC_ERR_INVALID_ARGUMENT, "metadata '", key, "' is ",
         meta_type_name(v.type), ", not an array");
  if (index >= v.count)
    fail(LLMC_ERR_OUT_OF_RANGE, "metadata '", key, "': index ", index,
         " out of range (length ", v.count, ")");
  if (v.elem_type == LLMC_META_STRING) {
    MetaValue e;
    e.type = LLMC_META_STRING;
    e.str = v.strings[index];
    return e;
  }
  if (v.elem_type == LLMC_META_ARRAY)
    return v.items[index];
  MetaValue e;
  meta_decode_scalar(v.elem_type,
                     v.raw + index * meta_scalar_size(v.elem_type), &e);
  return e;
}

} // namespace llmc::rt
