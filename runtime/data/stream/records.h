// The records of one shard of a data.stream, read lazily from a position: lines of a text
// file, one string field of each JSONL line, one string column of a Parquet file. A reader
// opened at a saved position goes straight there (a byte offset, or a Parquet row group), so
// resuming a stream reads nothing it had read before, except the rows before the position
// inside its Parquet row group or Arrow record batch (`skipped()` counts them).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace runner::data {

// Where the next record of a shard starts: text, JSONL and token files a byte offset (`major`), Parquet a
// row group / Arrow a record batch (`major`) and a row in it (`minor`).
struct RecordPos {
  int64_t major = 0, minor = 0;
  bool operator==(const RecordPos& o) const { return major == o.major && minor == o.minor; }
};

class RecordReader {
 public:
  virtual ~RecordReader() = default;
  // The next record (UTF-8 or raw bytes); false at the end of the shard.
  virtual bool next(std::string& record) = 0;
  // Where the record after the last one returned starts.
  virtual RecordPos position() const = 0;
  // Records decoded only to reach the position the reader was opened at.
  int64_t skipped() const { return skipped_; }

 protected:
  int64_t skipped_ = 0;
};

// What a shard holds and how its records are cut.
//   "text": one record per non-empty line ("\n" or "\r\n"; HF's text loader keeps empty lines,
//     but they hold no tokens); "jsonl": the string field `column` of each line's object;
//   "parquet" / "arrow": the string column `column` (Arrow IPC files and streams);
//   "token_bin": token ids already (nanoGPT's .bin, `token_bytes` little-endian bytes each),
//     cut into records of `chunk_tokens` tokens.
// A DataError names the file and the key (or byte offset) for a missing file, a missing column
// or a value that is not a string.
struct RecordFormat {
  std::string format;
  std::string column = "text";
  int token_bytes = 2;
  int64_t chunk_tokens = 1024;
};
std::unique_ptr<RecordReader> open_records(const RecordFormat& format, const std::string& path, RecordPos start);

// Parquet and Arrow IPC, in the Arrow target (sources/arrow_records.cpp; arrow_unavailable.cpp without Arrow).
std::unique_ptr<RecordReader> open_parquet_records(const std::string& path, const std::string& column, RecordPos start);
std::unique_ptr<RecordReader> open_arrow_records(const std::string& path, const std::string& column, RecordPos start);

}  // namespace runner::data
