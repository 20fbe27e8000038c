// data.parquet: Parquet files read with libparquet, column by column and row group by row
// group, so an error names the row group and column it is in. Only the projected columns'
// pages are read; pre-buffering coalesces each column chunk's reads into few large ones.
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>

#include "runtime/core/errors.h"
#include "runtime/data/sources/arrow_dataset.h"

namespace runner::data {

namespace {

ArrowPart read_parquet(const std::string& path, const ArrowOptions& options) {
  parquet::ArrowReaderProperties props;
  props.set_pre_buffer(true);
  props.set_use_threads(false);  // the DataLoader's workers are the parallelism; loading happens once
  parquet::arrow::FileReaderBuilder builder;
  check_status(builder.OpenFile(path, /*memory_map=*/false), path, "not a readable Parquet file");
  builder.properties(props);
  auto reader = builder.Build();
  check_status(reader.status(), path, "not a readable Parquet file");
  std::shared_ptr<arrow::Schema> schema;
  check_status((*reader)->GetSchema(&schema), path, "cannot read the Parquet schema");
  ArrowPart part{path, nullptr, {}, (*reader)->parquet_reader()->metadata()->num_rows()};
  arrow::FieldVector fields;
  for (const int f : project(*schema, options, path)) {
    const std::string& name = schema->field(f)->name();
    arrow::ArrayVector chunks;
    for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
      const std::string what = "row group " + std::to_string(g) + ", column '" + name + "'";
      std::shared_ptr<arrow::ChunkedArray> read;
      try {
        check_status((*reader)->RowGroup(g)->Column(f)->Read(&read), path, what);
      } catch (const parquet::ParquetException& e) {  // some decoders throw instead of returning a Status
        check_status(arrow::Status::IOError(e.what()), path, what);
      }
      for (const auto& chunk : read->chunks()) {
        check_status(chunk->ValidateFull(), path, what);
        chunks.push_back(chunk);
      }
    }
    fields.push_back(schema->field(f));
    part.columns.push_back(std::make_shared<arrow::ChunkedArray>(std::move(chunks), schema->field(f)->type()));
  }
  part.schema = arrow::schema(std::move(fields));
  return part;
}

}  // namespace

DatasetPtr load_parquet(const std::string& path, const ArrowOptions& options) {
  std::vector<ArrowPart> parts;
  for (const auto& file : expand_paths(path, ".parquet")) parts.push_back(read_parquet(file, options));
  return make_arrow_dataset(std::move(parts), options, "data.parquet(" + path + ")");
}

}  // namespace runner::data
