// Files a data source finds by itself (a folder's or a glob's files, the shards a
// save_to_disk state.json names) pass one check before they are read. runtime/data calls it;
// a sandboxed recipe installs it (bindings/lua: checked_path), so a folder the recipe may read
// cannot lead it, through a symbolic link or a crafted state.json, to a file it may not.
#pragma once
#include <functional>
#include <string>

namespace runner {

using FoundFileCheck = std::function<void(const std::string& path)>;
void set_found_file_check(FoundFileCheck check);  // nullptr: none
void check_found_file(const std::string& path);   // throws what the check throws

}  // namespace runner
