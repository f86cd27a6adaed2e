// Opens an artifact: finds and parses the manifest, loads lib<name>.so, resolves the entry points.
#include "model.h"

#include "error.h"
#include "mapped_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <vector>

namespace llmc::rt {

namespace {

constexpr const char *kManifestSuffix = ".json";

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string base_name(std::string path) {
  while (path.size() > 1 && path.back() == '/')
    path.pop_back();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// The manifest's name is the model's, which the caller may not know, so a
/// directory is searched: its only *.json file, or `<dir name>.json` when the
/// directory holds several.
std::string find_manifest(const std::string &dir) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    fail(LLMC_ERR_IO, dir, ": cannot open artifact directory: ",
         std::strerror(errno));
  std::vector<std::string> found;
  while (const dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    if (ends_with(name, kManifestSuffix) && name.size() > std::strlen(kManifestSuffix))
      found.push_back(name);
  }
  ::closedir(d);
  std::sort(found.begin(), found.end());
  if (found.empty())
    fail(LLMC_ERR_IO, dir, ": no manifest (<name>.json) in the artifact "
         "directory; is this the output of `llmc compile -o`?");
  if (found.size() == 1)
    return dir + "/" + found[0];
  std::string preferred = base_name(dir) + kManifestSuffix;
  if (std::find(found.begin(), found.end(), preferred) != found.end())
    return dir + "/" + preferred;
  std::string list;
  for (const auto &f : found)
    list += (list.empty() ? "" : ", ") + f;
  fail(LLMC_ERR_FORMAT, dir, ": several manifests (", list,
       "); pass the manifest file itself");
}

std::string read_text(const std::string &path) {
  auto file = MappedFile::open(path);
  return std::string(reinterpret_cast<const char *>(file->data()),
                     static_cast<size_t>(file->size()));
}

} // namespace

Model::Model(Manifest manifest, std::string dir)
    : manifest_(std::move(manifest)), dir_(std::move(dir)) {}

std::shared_ptr<Model> Model::open_manifest(const std::string &path) {
  if (!path_exists(path))
    fail(LLMC_ERR_IO, path, ": no such artifact directory or manifest");
  std::string manifest_path =
      is_directory(path) ? find_manifest(path) : path;
  return std::shared_ptr<Model>(
      new Model(parse_manifest(read_text(manifest_path), manifest_path),
                parent_directory(manifest_path)));
}

std::shared_ptr<const Model> Model::open(const std::string &path) {
  std::shared_ptr<Model> model = open_manifest(path);
  const Manifest &m = model->manifest_;
  model->library_ = std::make_unique<SharedLibrary>(model->dir_ + "/" + m.library);
  model->prefill_ = reinterpret_cast<PrefillFn>(
      model->library_->symbol(m.prefill_symbol, "prefill"));
  model->decode_ = reinterpret_cast<DecodeFn>(
      model->library_->symbol(m.decode_symbol, "decode"));
  model->cpu_threads_ = CpuThreads(*model->library_);
  if (m.target == TargetKind::Cuda)
    model->cuda_ = std::make_unique<CudaProgram>(m, *model->library_);
  return model;
}

std::shared_ptr<const Model> Model::open_linked(const std::string &path,
                                                PrefillFn prefill,
                                                DecodeFn decode) {
  if (!prefill || !decode)
    fail(LLMC_ERR_INVALID_ARGUMENT, "llmc_model_open_linked: the prefill and "
         "decode entry points must not be NULL");
  std::shared_ptr<Model> model = open_manifest(path);
  model->prefill_ = prefill;
  model->decode_ = decode;
  std::unique_ptr<SharedLibrary> program = SharedLibrary::main_program();
  model->cpu_threads_ = CpuThreads(*program);
  if (model->manifest_.target == TargetKind::Cuda)
    model->cuda_ = std::make_unique<CudaProgram>(model->manifest_, *program);
  return model;
}

bool Model::is_eos(int32_t token) const {
  const auto &ids = manifest_.eos_token_ids;
  return std::find(ids.begin(), ids.end(), token) != ids.end();
}

} // namespace llmc::rt
