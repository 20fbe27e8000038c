// data.arrow: Arrow IPC files (Feather v2: "ARROW1" magic, a footer with random access) and
// IPC streams (what `datasets` writes: a schema message, then record batches). Both are
// memory-mapped: the arrays point into the mapping instead of being copied (the page cache holds
// them, not runner). Loading validates each array once (ValidateFull: offsets inside their
// buffers), so a corrupt file is a DataError rather than a crash in a worker. Only the projected
// columns are decoded (IpcReadOptions::included_fields).
#include <cstring>

#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>

#include "runtime/core/errors.h"
#include "runtime/data/sources/arrow_dataset.h"

namespace runner::data {

namespace {

ArrowPart read_arrow(const std::string& path, const ArrowOptions& options) {
  auto file = arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ);
  check_status(file.status(), path, "cannot open");
  char magic[6] = {};
  auto got = (*file)->ReadAt(0, 6, magic);
  check_status(got.status(), path, "cannot read");
  const bool random_access = *got == 6 && std::memcmp(magic, "ARROW1", 6) == 0;
  // The schema first, for the projection; the file is then read with only those fields.
  std::shared_ptr<arrow::Schema> schema;
  if (random_access) {
    auto r = arrow::ipc::RecordBatchFileReader::Open(*file);
    check_status(r.status(), path, "not a readable Arrow IPC file (truncated? its footer is missing or corrupt)");
    schema = (*r)->schema();
  } else {
    check_status((*file)->Seek(0), path, "cannot read");
    auto r = arrow::ipc::RecordBatchStreamReader::Open(*file);
    check_status(r.status(), path, "not an Arrow IPC file or stream");
    schema = (*r)->schema();
  }
  auto ipc = arrow::ipc::IpcReadOptions::Defaults();
  ipc.included_fields = project(*schema, options, path);
  ipc.use_threads = false;
  std::vector<arrow::ArrayVector> chunks(ipc.included_fields.size());
  ArrowPart part{path, nullptr, {}, 0};
  auto add = [&](const std::shared_ptr<arrow::RecordBatch>& batch, int64_t index) {
    const std::string what = "record batch " + std::to_string(index) + " (rows from " + std::to_string(part.rows) + ")";
    for (int j = 0; j < batch->num_columns(); ++j) {
      check_status(batch->column(j)->ValidateFull(), path, what + ", column '" + batch->schema()->field(j)->name() + "'");
      chunks[static_cast<size_t>(j)].push_back(batch->column(j));
    }
    part.schema = batch->schema();
    part.rows += batch->num_rows();
  };
  if (random_access) {
    auto r = arrow::ipc::RecordBatchFileReader::Open(*file, ipc);
    check_status(r.status(), path, "not a readable Arrow IPC file (truncated? its footer is missing or corrupt)");
    part.schema = (*r)->schema();
    for (int b = 0; b < (*r)->num_record_batches(); ++b) {
      auto batch = (*r)->ReadRecordBatch(b);
      check_status(batch.status(), path, "record batch " + std::to_string(b) + " (rows from " + std::to_string(part.rows) + ")");
      add(*batch, b);
    }
  } else {
    check_status((*file)->Seek(0), path, "cannot read");
    auto r = arrow::ipc::RecordBatchStreamReader::Open(*file, ipc);
    check_status(r.status(), path, "not an Arrow IPC file or stream");
    part.schema = (*r)->schema();
    for (int64_t b = 0;; ++b) {
      std::shared_ptr<arrow::RecordBatch> batch;
      check_status((*r)->ReadNext(&batch), path,
                   "record batch " + std::to_string(b) + " (rows from " + std::to_string(part.rows) + "; the file is truncated or corrupt)");
      if (!batch) break;
      add(batch, b);
    }
  }
  for (size_t j = 0; j < chunks.size(); ++j)
    part.columns.push_back(std::make_shared<arrow::ChunkedArray>(std::move(chunks[j]), part.schema->field(static_cast<int>(j))->type()));
  return part;
}

}  // namespace

DatasetPtr load_arrow_files(const std::vector<std::string>& files, const ArrowOptions& options, const std::string& origin) {
  std::vector<ArrowPart> parts;
  for (const auto& file : files) parts.push_back(read_arrow(file, options));
  return make_arrow_dataset(std::move(parts), options, origin);
}

DatasetPtr load_arrow(const std::string& path, const ArrowOptions& options) {
  return load_arrow_files(expand_paths(path, ".arrow"), options, "data.arrow(" + path + ")");
}

}  // namespace runner::data
