#include "runtime/io/event_writer.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <isa-l/crc.h>  // CRC-32C: Debian has no other C/C++ library for it (ISA-L's crc32_iscsi)

#include "runtime/core/errors.h"
#include "tensorboard.pb.h"

namespace runner::io {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// TensorFlow's DataType values the records use.
constexpr int kDtString = 7;
constexpr int kHParamString = 1, kHParamBool = 2, kHParamFloat64 = 3;

tb::Event summary_event(int64_t step) {
  tb::Event e;
  e.set_wall_time(now_seconds());
  e.set_step(step);
  return e;
}

tb::Event hparams_event(const tb::HParamsPluginData& data, int64_t step) {
  tb::Event e = summary_event(step);
  tb::Summary::Value* v = e.mutable_summary()->add_value();
  // The hparams plugin finds its records by these tags (torch.utils.tensorboard.summary.hparams).
  v->set_tag(data.has_experiment() ? "_hparams_/experiment"
             : data.has_session_start_info() ? "_hparams_/session_start_info"
                                             : "_hparams_/session_end_info");
  v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("hparams");
  v->mutable_metadata()->mutable_plugin_data()->set_content(data.SerializeAsString());
  return e;
}

}  // namespace

uint32_t masked_crc32c(const void* data, size_t size) {
  // crc32_iscsi neither inverts the initial value nor the result; CRC-32C does both.
  uint32_t crc = 0xFFFFFFFFu;
  const auto* p = static_cast<const unsigned char*>(data);
  while (size > 0) {  // its length argument is an int
    const int n = static_cast<int>(std::min<size_t>(size, 1u << 30));
    crc = crc32_iscsi(const_cast<unsigned char*>(p), n, crc);
    p += n;
    size -= static_cast<size_t>(n);
  }
  crc = ~crc;
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

EventWriter::EventWriter(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw CheckpointError("cannot create the TensorBoard folder: " + ec.message(), dir);
  static std::atomic<int> counter{0};
  const auto secs = static_cast<long long>(now_seconds());
  char name[512];
  std::snprintf(name, sizeof name, "events.out.tfevents.%010lld.%s.%d.%d", secs, host_name().c_str(), static_cast<int>(::getpid()),
                counter++);
  path_ = (std::filesystem::path(dir) / name).string();
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) throw CheckpointError(std::string("cannot create the TensorBoard event file: ") + std::strerror(errno), path_);
  tb::Event first;
  first.set_wall_time(now_seconds());
  first.set_file_version("brain.Event:2");
  write(first);
  flush();
}

EventWriter::~EventWriter() {
  if (file_) std::fclose(file_);
}

void EventWriter::write(const tb::Event& event) {
  const std::string data = event.SerializeAsString();
  unsigned char header[12];
  const uint64_t len = data.size();
  for (int i = 0; i < 8; ++i) header[i] = static_cast<unsigned char>(len >> (8 * i));  // little-endian
  const uint32_t len_crc = masked_crc32c(header, 8), data_crc = masked_crc32c(data.data(), data.size());
  for (int i = 0; i < 4; ++i) header[8 + i] = static_cast<unsigned char>(len_crc >> (8 * i));
  unsigned char footer[4];
  for (int i = 0; i < 4; ++i) footer[i] = static_cast<unsigned char>(data_crc >> (8 * i));
  if (std::fwrite(header, 1, sizeof header, file_) != sizeof header || std::fwrite(data.data(), 1, data.size(), file_) != data.size() ||
      std::fwrite(footer, 1, sizeof footer, file_) != sizeof footer)
    throw CheckpointError(std::string("cannot write the TensorBoard event file: ") + std::strerror(errno), path_);
}

void EventWriter::flush() {
  if (std::fflush(file_) != 0) throw CheckpointError(std::string("cannot write the TensorBoard event file: ") + std::strerror(errno), path_);
}

void EventWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  tb::Event e = summary_event(step);
  tb::Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(static_cast<float>(value));
  write(e);
}

void EventWriter::add_text(const std::string& tag, const std::string& text, int64_t step) {
  tb::Event e = summary_event(step);
  tb::Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag(tag + "/text_summary");
  v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("text");
  v->mutable_metadata()->mutable_plugin_data()->set_content(tb::TextPluginData().SerializeAsString());
  tb::TensorProto* t = v->mutable_tensor();
  t->set_dtype(kDtString);
  t->mutable_tensor_shape()->add_dim()->set_size(1);
  t->add_string_val(text);
  write(e);
}

void EventWriter::add_hparams(const nlohmann::json& hparams, const std::vector<std::string>& metric_tags, int64_t step) {
  tb::HParamsPluginData experiment, start;
  tb::Experiment* exp = experiment.mutable_experiment();
  exp->set_time_created_secs(now_seconds());
  tb::SessionStartInfo* ssi = start.mutable_session_start_info();
  ssi->set_start_time_secs(now_seconds());
  for (const auto& [key, value] : hparams.items()) {
    tb::HParamInfo* info = exp->add_hparam_infos();
    info->set_name(key);
    google::protobuf::Value& v = (*ssi->mutable_hparams())[key];
    if (value.is_boolean()) {
      info->set_type(kHParamBool);
      v.set_bool_value(value.get<bool>());
    } else if (value.is_number()) {
      info->set_type(kHParamFloat64);
      v.set_number_value(value.get<double>());
    } else {
      info->set_type(kHParamString);
      v.set_string_value(value.is_string() ? value.get<std::string>() : value.is_null() ? "None" : value.dump());
    }
  }
  for (const std::string& tag : metric_tags) exp->add_metric_infos()->mutable_name()->set_tag(tag);
  write(hparams_event(experiment, step));
  write(hparams_event(start, step));
}

void EventWriter::end_session(bool success, int64_t step) {
  tb::HParamsPluginData end;
  end.mutable_session_end_info()->set_status(success ? 1 : 3);
  end.mutable_session_end_info()->set_end_time_secs(now_seconds());
  write(hparams_event(end, step));
  flush();
}

}  // namespace runner::io
