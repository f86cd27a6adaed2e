// extern "C" llmc_weights_* entry points over WeightSet.
#include "api_guard.h"
#include "handles.h"
#include "dtype.h"
#include "random_weights.h"
#include "weights_open.h"

#include <cstring>
#include <memory>

using namespace llmc::rt;


namespace {
const MetaValue &meta_or_throw(const llmc_weights *w, const char *key,
                               const char *fn) {
  require(w, fn, "weights");
  require(key, fn, "key");
  return w->set.meta(key);
}
} // namespace

extern "C" {

llmc_status llmc_weights_open(const char *path, llmc_weights_format format,
                              llmc_weights **out) {
  return guarded([&] {
    require(path, "llmc_weights_open", "path");
    require(out, "llmc_weights_open", "out");
    auto w = std::make_unique<llmc_weights>();
    open_weights(path, format, w->set);
    *out = w.release();
  });
}

llmc_status llmc_weights_create_random(const llmc_model *model, uint64_t seed,
                                       llmc_weights **out) {
  return guarded([&] {
    require(model, "llmc_weights_create_random", "model");
    require(out, "llmc_weights_create_random", "out");
    auto w = std::make_unique<llmc_weights>();
    make_random_weights(model->model->manifest(), seed, w->set);
    *out = w.release();
  });
}

void llmc_weights_destroy(llmc_weights *weights) { delete weights; }

const char *llmc_dtype_name(llmc_dtype dtype) { return dtype_traits(dtype).name; }

llmc_status llmc_weights_set_residency(llmc_weights *weights,
                                       llmc_weights_residency residency) {
  return guarded([&] {
    require(weights, "llmc_weights_set_residency", "weights");
    // A C caller may pass any int: read its bytes, since a C++ load of an
    // enum outside the enumerators' range is undefined.
    int value;
    static_assert(sizeof value == sizeof residency, "an int-sized enum");
    std::memcpy(&value, &residency, sizeof value);
    if (value != LLMC_WEIGHTS_RESIDENT && value != LLMC_WEIGHTS_MAPPED)
      fail(LLMC_ERR_INVALID_ARGUMENT, "llmc_weights_set_residency: residency ",
           value, " is neither LLMC_WEIGHTS_RESIDENT (0) nor "
           "LLMC_WEIGHTS_MAPPED (1)");
    weights->set.keep_mapped(value == LLMC_WEIGHTS_MAPPED);
  });
}

llmc_weights_residency llmc_weights_get_residency(const llmc_weights *weights) {
  return weights && weights->set.keeps_mapped() ? LLMC_WEIGHTS_MAPPED
                                                : LLMC_WEIGHTS_RESIDENT;
}

llmc_weights_format llmc_weights_get_format(const llmc_weights *weights) {
  return weights ? weights->set.format : LLMC_WEIGHTS_AUTO;
}

llmc_rope_layout llmc_weights_rope_layout(const llmc_weights *weights) {
  return weights ? weights->set.rope_layout : LLMC_ROPE_INTERLEAVED;
}

size_t llmc_weights_tensor_count(const llmc_weights *weights) {
  return weights ? weights->set.tensor_count() : 0;
}

llmc_status llmc_weights_tensor_info(const llmc_weights *weights, size_t index,
                                     llmc_tensor_info *out) {
  return guarded([&] {
    require(weights, "llmc_weights_tensor_info", "weights");
    require(out, "llmc_weights_tensor_info", "out");
    if (index >= weights->set.tensor_count())
      fail(LLMC_ERR_OUT_OF_RANGE, "tensor index ", index, " out of range (",
           weights->set.tensor_count(), " tensors)");
    const TensorEntry &t = weights->set.tensor(index);
    out->name = t.name.c_str();
    out->source_name = t.source_name.c_str();
    out->n_dims = t.n_dims;
    for (int d = 0; d < LLMC_MAX_DIMS; ++d)
      out->shape[d] = d < t.n_dims ? t.shape[d] : 1;
    out->n_elements = t.n_elements;
    out->dtype = t.dtype;
    out->n_bytes = t.n_bytes;
  });
}

llmc_status llmc_weights_find(const llmc_weights *weights, const char *name,
                              size_t *index) {
  return guarded([&] {
    require(weights, "llmc_weights_find", "weights");
    require(name, "llmc_weights_find", "name");
    require(index, "llmc_weights_find", "index");
    *index = weights->set.find_tensor(name);
  });
}

llmc_status llmc_weights_tensor_f32(llmc_weights *weights, const char *name,
                                    const float **data, size_t *n_elements) {
  return guarded([&] {
    require(weights, "llmc_weights_tensor_f32", "weights");
    require(name, "llmc_weights_tensor_f32", "name");
    require(data, "llmc_weights_tensor_f32", "data");
    size_t i = weights->set.find_tensor(name);
    const float *p = weights->set.tensor_f32(i);
    *data = p;
    if (n_elements)
      *n_elements = static_cast<size_t>(weights->set.tensor(i).n_elements);
  });
}

llmc_status llmc_weights_copy_f32(const llmc_weights *weights, const char *name,
                                  float *dst, size_t capacity,
                                  size_t *n_elements) {
  return guarded([&] {
    require(weights, "llmc_weights_copy_f32", "weights");
    require(name, "llmc_weights_copy_f32", "name");
    const TensorEntry &t = weights->set.tensor(weights->set.find_tensor(name));
    size_t n = static_cast<size_t>(t.n_elements);
    if (n_elements)
      *n_elements = n;
    if (capacity < n)
      fail(LLMC_ERR_BUFFER_TOO_SMALL, "tensor '", name, "' has ", n,
           " elements, buffer holds ", capacity);
    if (n > 0) {
      require(dst, "llmc_weights_copy_f32", "dst");
      convert_to_f32(t.dtype, t.data, n, dst);
    }
  });
}

llmc_status llmc_weights_tensor_raw(const llmc_weights *weights,
                                    const char *name, const void **data,
                                    uint64_t *n_bytes) {
  return guarded([&] {
    require(weights, "llmc_weights_tensor_raw", "weights");
    require(name, "llmc_weights_tensor_raw", "name");
    require(data, "llmc_weights_tensor_raw", "data");
    const TensorEntry &t = weights->set.tensor(weights->set.find_tensor(name));
    *data = t.data;
    if (n_bytes)
      *n_bytes = t.n_bytes;
  });
}

size_t llmc_weights_meta_count(const llmc_weights *weights) {
  return weights ? weights->set.meta_count() : 0;
}

llmc_status llmc_weights_meta_key(const llmc_weights *weights, size_t index,
                                  const char **key) {
  return guarded([&] {
    require(weights, "llmc_weights_meta_key", "weights");
    require(key, "llmc_weights_meta_key", "key");
    if (index >= weights->set.meta_count())
      fail(LLMC_ERR_OUT_OF_RANGE, "metadata index ", index, " out of range (",
           weights->set.meta_count(), " keys)");
    *key = weights->set.meta_at(index).first.c_str();
  });
}

llmc_status llmc_weights_meta_type(const llmc_weights *weights, const char *key,
                                   llmc_meta_type *type,
                                   llmc_meta_type *elem_type,
                                   uint64_t *array_len) {
  return guarded([&] {
    const MetaValue &v = meta_or_throw(weights, key, "llmc_weights_meta_type");
    if (type)
      *type = v.type;
    if (elem_type)
      *elem_type = v.type == LLMC_META_ARRAY ? v.elem_type : v.type;
    if (array_len)
      *array_len = v.type == LLMC_META_ARRAY ? v.count : 0;
  });
}

llmc_status llmc_weights_meta_int(const llmc_weights *weights, const char *key,
                                  int64_t *value) {
  return guarded([&] {
    require(value, "llmc_weights_meta_int", "value");
    *value = meta_as_int(meta_or_throw(weights, key, "llmc_weights_meta_int"), key);
  });
}

llmc_status llmc_weights_meta_float(const llmc_weights *weights,
                                    const char *key, double *value) {
  return guarded([&] {
    require(value, "llmc_weights_meta_float", "value");
    *value =
        meta_as_float(meta_or_throw(weights, key, "llmc_weights_meta_float"), key);
  });
}

llmc_status llmc_weights_meta_string(const llmc_weights *weights,
                                     const char *key, const char **data,
                                     size_t *len) {
  return guarded([&] {
    require(data, "llmc_weights_meta_string", "data");
    require(len, "llmc_weights_meta_string", "len");
    std::string_view s = meta_as_string(
        meta_or_throw(weights, key, "llmc_weights_meta_string"), key);
    *data = s.data();
    *len = s.size();
  });
}

llmc_status llmc_weights_meta_array_int(const llmc_weights *weights,
                                        const char *key, uint64_t index,
                                        int64_t *value) {
  return guarded([&] {
    require(value, "llmc_weights_meta_array_int", "value");
    const MetaValue &v =
        meta_or_throw(weights, key, "llmc_weights_meta_array_int");
    *value = meta_as_int(meta_array_element(v, index, key), key);
  });
}

llmc_status llmc_weights_meta_array_float(const llmc_weights *weights,
                                          const char *key, uint64_t index,
                                          double *value) {
  return guarded([&] {
    require(value, "llmc_weights_meta_array_float", "value");
    const MetaValue &v =
        meta_or_throw(weights, key, "llmc_weights_meta_array_float");
    *value = meta_as_float(meta_array_element(v, index, key), key);
  });
}

llmc_status llmc_weights_meta_array_string(const llmc_weights *weights,
                                           const char *key, uint64_t index,
                                           const char **data, size_t *len) {
  return guarded([&] {
    require(data, "llmc_weights_meta_array_string", "data");
    require(len, "llmc_weights_meta_array_string", "len");
    const MetaValue &v =
        meta_or_throw(weights, key, "llmc_weights_meta_array_string");
    std::string_view s = meta_as_string(meta_array_element(v, index, key), key);
    *data = s.data();
    *len = s.size();
  });
}

} // extern "C"
