// data.stream over Parquet: one string column read row group by row group, so a shard's
// memory is one row group's column, and a resumed stream opens the saved row group directly.
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>

#include "runtime/core/errors.h"
#include "runtime/data/sources/arrow_dataset.h"
#include "runtime/data/stream/records.h"

namespace runner::data {

namespace {

class ParquetRecords : public RecordReader {
 public:
  ParquetRecords(const std::string& path, const std::string& column, RecordPos start) : path_(path), column_(column), pos_(start) {
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
    field_ = schema->GetFieldIndex(column);
    if (field_ < 0) throw DataError("data.stream: no column '" + column + "' (it has " + schema->ToString(false) + ")", path);
    const auto type = schema->field(field_)->type()->id();
    if (type != arrow::Type::STRING && type != arrow::Type::LARGE_STRING && type != arrow::Type::BINARY && type != arrow::Type::LARGE_BINARY)
      throw DataError("data.stream: column '" + column + "' is " + schema->field(field_)->type()->ToString() + ", expected strings", path);
    if (pos_.major < 0 || pos_.major > reader_->num_row_groups())
      throw DataError("data.stream: saved row group " + std::to_string(pos_.major) + " does not exist: was the file changed since the checkpoint?", path);
    if (pos_.major < reader_->num_row_groups()) load(pos_.major);
    if (pos_.minor > static_cast<int64_t>(rows_.size()))
      throw DataError("data.stream: saved row " + std::to_string(pos_.minor) + " is past its row group: was the file changed since the checkpoint?", path);
    skipped_ = pos_.minor;  // the rows before the position in its row group were decoded for nothing
  }

  bool next(std::string& record) override {
    while (pos_.minor >= static_cast<int64_t>(rows_.size())) {
      if (pos_.major + 1 >= reader_->num_row_groups()) {
        pos_ = {reader_->num_row_groups(), 0};
        rows_.clear();
        return false;
      }
      pos_ = {pos_.major + 1, 0};
      load(pos_.major);
    }
    record = std::move(rows_[static_cast<size_t>(pos_.minor)]);
    ++pos_.minor;
    return true;
  }
  RecordPos position() const override { return pos_; }

 private:
  void load(int64_t group) {
    const std::string what = "row group " + std::to_string(group) + ", column '" + column_ + "'";
    std::shared_ptr<arrow::ChunkedArray> read;
    try {
      check_status(reader_->RowGroup(static_cast<int>(group))->Column(field_)->Read(&read), path_, what);
    } catch (const parquet::ParquetException& e) {
      check_status(arrow::Status::IOError(e.what()), path_, what);
    }
    rows_.clear();
    for (const auto& chunk : read->chunks()) {
      for (int64_t i = 0; i < chunk->length(); ++i) {
        if (chunk->IsNull(i)) {
          rows_.emplace_back();  // a null row holds no text
          continue;
        }
        if (chunk->type_id() == arrow::Type::STRING || chunk->type_id() == arrow::Type::BINARY)
          rows_.emplace_back(static_cast<const arrow::BinaryArray&>(*chunk).GetView(i));
        else
          rows_.emplace_back(static_cast<const arrow::LargeBinaryArray&>(*chunk).GetView(i));
      }
    }
  }

  std::string path_, column_;
  std::unique_ptr<parquet::arrow::FileReader> reader_;
  int field_ = -1;
  RecordPos pos_;
  std::vector<std::string> rows_;  // the current row group's values
};

}  // namespace

std::unique_ptr<RecordReader> open_parquet_records(const std::string& path, const std::string& column, RecordPos start) {
  return std::make_unique<ParquetRecords>(path, column, start);
}

}  // namespace runner::data
