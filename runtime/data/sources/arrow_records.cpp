// data.stream over Parquet and Arrow IPC shards: one string column read a group of rows at a
// time (a Parquet row group, an Arrow record batch), so a shard's memory is one group's column
// and a resumed stream opens the saved group directly. An Arrow IPC *stream* (datasets'
// data-*.arrow) has no index of its batches: the batches before the saved one are read past
// (memory-mapped, only the column) and counted as skipped.
#include <cstring>

#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>

#include "runtime/core/errors.h"
#include "runtime/data/sources/arrow_dataset.h"
#include "runtime/data/stream/records.h"

namespace runner::data {

namespace {

bool is_string_type(const arrow::DataType& t) {
  const auto id = t.id();
  return id == arrow::Type::STRING || id == arrow::Type::LARGE_STRING || id == arrow::Type::BINARY || id == arrow::Type::LARGE_BINARY;
}

void append_strings(const arrow::Array& a, std::vector<std::string>& rows) {
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsNull(i)) rows.emplace_back();  // a null row holds no text
    else if (a.type_id() == arrow::Type::STRING || a.type_id() == arrow::Type::BINARY) rows.emplace_back(static_cast<const arrow::BinaryArray&>(a).GetView(i));
    else rows.emplace_back(static_cast<const arrow::LargeBinaryArray&>(a).GetView(i));
  }
}

// Rows in numbered groups; the position is (group, row in it).
class GroupedRecords : public RecordReader {
 public:
  bool next(std::string& record) override {
    while (pos_.minor >= static_cast<int64_t>(rows_.size())) {
      if (done_ || !load(pos_.major + 1)) {
        done_ = true;
        rows_.clear();
        return false;
      }
      pos_ = {pos_.major + 1, 0};
    }
    record = std::move(rows_[static_cast<size_t>(pos_.minor)]);
    ++pos_.minor;
    return true;
  }
  RecordPos position() const override { return pos_; }

 protected:
  GroupedRecords(std::string path, std::string column) : path_(std::move(path)), column_(std::move(column)) {}
  // Loads group g's values into rows_; false when there is no group g.
  virtual bool load(int64_t group) = 0;
  // Called by the subclass once it is open.
  void start(RecordPos start) {
    pos_ = start;
    if (!load(pos_.major)) {
      rows_.clear();
      done_ = true;
    }
    if (pos_.minor > static_cast<int64_t>(rows_.size()) || (done_ && pos_.minor > 0))
      throw DataError("data.stream: saved row " + std::to_string(pos_.minor) + " of group " + std::to_string(pos_.major) +
                      " is past its end: was the file changed since the checkpoint?", path_);
    skipped_ += pos_.minor;  // the rows before the position in its group were decoded for nothing
  }
  void check_column(const arrow::Schema& schema) {
    field_ = schema.GetFieldIndex(column_);
    if (field_ < 0) throw DataError("data.stream: no column '" + column_ + "' (it has " + schema.ToString(false) + ")", path_);
    if (!is_string_type(*schema.field(field_)->type()))
      throw DataError("data.stream: column '" + column_ + "' is " + schema.field(field_)->type()->ToString() + ", expected strings", path_);
  }
  std::string path_, column_;
  int field_ = -1;
  std::vector<std::string> rows_;

 private:
  RecordPos pos_;
  bool done_ = false;
};

class ParquetRecords : public GroupedRecords {
 public:
  ParquetRecords(const std::string& path, const std::string& column, RecordPos pos) : GroupedRecords(path, column) {
    parquet::arrow::FileReaderBuilder builder;
    check_status(builder.OpenFile(path, /*memory_map=*/false), path, "data.stream: not a readable Parquet file");
    parquet::ArrowReaderProperties props;
    props.set_use_threads(false);  // the loader's workers are the parallelism
    builder.properties(props);
    auto reader = builder.Build();
    check_status(reader.status(), path, "data.stream: not a readable Parquet file");
    reader_ = std::move(*reader);
    std::shared_ptr<arrow::Schema> schema;
    check_status(reader_->GetSchema(&schema), path, "data.stream: cannot read the Parquet schema");
    check_column(*schema);
    start(pos);
  }

 private:
  bool load(int64_t group) override {
    if (group >= reader_->num_row_groups()) return false;
    const std::string what = "row group " + std::to_string(group) + ", column '" + column_ + "'";
    std::shared_ptr<arrow::ChunkedArray> read;
    try {
      check_status(reader_->RowGroup(static_cast<int>(group))->Column(field_)->Read(&read), path_, what);
    } catch (const parquet::ParquetException& e) {  // some decoders throw instead of returning a Status
      check_status(arrow::Status::IOError(e.what()), path_, what);
    }
    rows_.clear();
    for (const auto& chunk : read->chunks()) append_strings(*chunk, rows_);
    return true;
  }
  std::unique_ptr<parquet::arrow::FileReader> reader_;
};

class ArrowRecords : public GroupedRecords {
 public:
  ArrowRecords(const std::string& path, const std::string& column, RecordPos pos) : GroupedRecords(path, column) {
    auto file = arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ);
    check_status(file.status(), path, "data.stream: cannot open");
    char magic[6] = {};
    auto got = (*file)->ReadAt(0, 6, magic);
    check_status(got.status(), path, "data.stream: cannot read");
    std::shared_ptr<arrow::Schema> schema;
    if (*got == 6 && std::memcmp(magic, "ARROW1", 6) == 0) {
      auto r = arrow::ipc::RecordBatchFileReader::Open(*file);
      check_status(r.status(), path, "data.stream: not a readable Arrow IPC file");
      schema = (*r)->schema();
      check_column(*schema);
      auto ipc = options();
      auto projected = arrow::ipc::RecordBatchFileReader::Open(*file, ipc);
      check_status(projected.status(), path, "data.stream: not a readable Arrow IPC file");
      file_reader_ = *projected;
    } else {
      auto r = arrow::ipc::RecordBatchStreamReader::Open(*file);
      check_status(r.status(), path, "data.stream: not an Arrow IPC file or stream");
      check_column(*(*r)->schema());
      check_status((*file)->Seek(0), path, "data.stream: cannot read");
      auto projected = arrow::ipc::RecordBatchStreamReader::Open(*file, options());
      check_status(projected.status(), path, "data.stream: not an Arrow IPC stream");
      stream_reader_ = *projected;
    }
    start(pos);
  }

 private:
  arrow::ipc::IpcReadOptions options() const {
    auto ipc = arrow::ipc::IpcReadOptions::Defaults();
    ipc.included_fields = {field_};
    ipc.use_threads = false;
    return ipc;
  }
  bool load(int64_t group) override {
    const std::string what = "record batch " + std::to_string(group) + ", column '" + column_ + "'";
    std::shared_ptr<arrow::RecordBatch> batch;
    if (file_reader_) {
      if (group >= file_reader_->num_record_batches()) return false;
      auto read = file_reader_->ReadRecordBatch(static_cast<int>(group));
      check_status(read.status(), path_, what);
      batch = *read;
    } else {
      // A stream reads in order: past the batches before `group` (a resume's first load).
      for (; next_batch_ <= group; ++next_batch_) {
        check_status(stream_reader_->ReadNext(&batch), path_, what + " (the file is truncated or corrupt)");
        if (!batch) return false;
        if (next_batch_ < group) skipped_ += batch->num_rows();
      }
    }
    check_status(batch->column(0)->ValidateFull(), path_, what);
    rows_.clear();
    append_strings(*batch->column(0), rows_);
    return true;
  }
  std::shared_ptr<arrow::ipc::RecordBatchFileReader> file_reader_;
  std::shared_ptr<arrow::ipc::RecordBatchStreamReader> stream_reader_;
  int64_t next_batch_ = 0;  // the stream's next batch
};

}  // namespace

std::unique_ptr<RecordReader> open_parquet_records(const std::string& path, const std::string& column, RecordPos start) {
  return std::make_unique<ParquetRecords>(path, column, start);
}

std::unique_ptr<RecordReader> open_arrow_records(const std::string& path, const std::string& column, RecordPos start) {
  return std::make_unique<ArrowRecords>(path, column, start);
}

}  // namespace runner::data
