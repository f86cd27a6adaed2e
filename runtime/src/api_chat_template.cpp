// extern "C" llmc_chat_template_* entry points over chat::ChatTemplate.
#include "api_guard.h"
#include "chat/chat_template.h"
#include "handles.h"

#include <cstring>
#include <memory>

using namespace llmc::rt;

struct llmc_chat_template {
  chat::ChatTemplate tmpl;
};

extern "C" {

llmc_status llmc_chat_template_create(const char *source, size_t len, llmc_chat_template **out) {
  return guarded([&] {
    if (len > 0)
      require(source, "llmc_chat_template_create", "source");
    require(out, "llmc_chat_template_create", "out");
    auto t = std::make_unique<llmc_chat_template>(
        llmc_chat_template{chat::ChatTemplate(std::string_view(source ? source : "", len))});
    *out = t.release();
  });
}

llmc_status llmc_chat_template_load(const char *path, llmc_chat_template **out) {
  return guarded([&] {
    require(path, "llmc_chat_template_load", "path");
    require(out, "llmc_chat_template_load", "out");
    std::string src = chat::load_chat_template_source(path);
    auto t = std::make_unique<llmc_chat_template>(llmc_chat_template{chat::ChatTemplate(src)});
    *out = t.release();
  });
}

llmc_status llmc_chat_template_from_weights(const llmc_weights *weights, llmc_chat_template **out) {
  return guarded([&] {
    require(weights, "llmc_chat_template_from_weights", "weights");
    require(out, "llmc_chat_template_from_weights", "out");
    std::string src = chat::chat_template_source_from_weights(weights->set);
    auto t = std::make_unique<llmc_chat_template>(llmc_chat_template{chat::ChatTemplate(src)});
    *out = t.release();
  });
}

void llmc_chat_template_destroy(llmc_chat_template *tmpl) { delete tmpl; }

llmc_status llmc_chat_template_source(const llmc_chat_template *tmpl, const char **source, size_t *len) {
  return guarded([&] {
    require(tmpl, "llmc_chat_template_source", "tmpl");
    require(source, "llmc_chat_template_source", "source");
    require(len, "llmc_chat_template_source", "len");
    *source = tmpl->tmpl.raw_source().data();
    *len = tmpl->tmpl.raw_source().size();
  });
}

llmc_status llmc_chat_template_render(const llmc_chat_template *tmpl, const char *messages_json,
                                      size_t len, const llmc_chat_render_options *opts, char *buf,
                                      size_t capacity, size_t *out_len) {
  return guarded([&] {
    require(tmpl, "llmc_chat_template_render", "tmpl");
    require(out_len, "llmc_chat_template_render", "out_len");
    if (len > 0)
      require(messages_json, "llmc_chat_template_render", "messages_json");
    chat::RenderInputs in;
    if (opts) {
      in.add_generation_prompt = opts->add_generation_prompt != 0;
      in.bos_token = opts->bos_token;
      in.eos_token = opts->eos_token;
      if (opts->tools_json)
        in.tools_json = std::string_view(opts->tools_json, opts->tools_json_len);
      if (opts->variables_json)
        in.extra_json = std::string_view(opts->variables_json, opts->variables_json_len);
    }
    std::string text = tmpl->tmpl.render(std::string_view(messages_json ? messages_json : "", len), in);
    *out_len = text.size();
    if (capacity < text.size())
      fail(LLMC_ERR_BUFFER_TOO_SMALL, "llmc_chat_template_render: ", text.size(),
           " bytes do not fit in a buffer of ", capacity);
    if (!text.empty()) {
      require(buf, "llmc_chat_template_render", "buf");
      std::memcpy(buf, text.data(), text.size());
    }
  });
}

} // extern "C"
