// pip's LibTorch exports its own unversioned copies of std::filesystem; a binary that
// binds to them crashes in remove_all (cmake/libtorch.cmake). Every binary the build makes
// lists libstdc++ first, so the process-wide definition must be libstdc++'s own. This test
// links LibTorch like every runner binary and checks both the binding and the behaviour.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <ATen/ATen.h>

namespace fs = std::filesystem;

TEST(StdFilesystem, ResolvesToTheSystemLibstdcxxNotLibTorch) {
  (void)at::ones({1});  // LibTorch is loaded and in use
  for (const char* symbol : {"_ZNSt10filesystem10remove_allERKNS_7__cxx114pathE",
                             "_ZNSt10filesystem18create_directoriesERKNS_7__cxx114pathE",
                             "_ZNSt10filesystem6renameERKNS_7__cxx114pathES3_"}) {
    void* address = dlsym(RTLD_DEFAULT, symbol);
    ASSERT_NE(address, nullptr) << symbol;
    Dl_info info{};
    ASSERT_NE(dladdr(address, &info), 0) << symbol;
    EXPECT_NE(std::string(info.dli_fname).find("libstdc++"), std::string::npos)
        << symbol << " binds to " << info.dli_fname << " (LibTorch's copy: see cmake/libtorch.cmake)";
  }
}

TEST(StdFilesystem, RemoveAllOfANestedTreeWorks) {
  const fs::path root = fs::temp_directory_path() / ("runner_fs_" + std::to_string(::getpid()));
  fs::create_directories(root / "a" / "b" / "c");
  std::ofstream(root / "a" / "b" / "c" / "f.txt") << "x";
  std::ofstream(root / "a" / "g.txt") << "y";
  EXPECT_EQ(fs::remove_all(root), 6u);  // root, a, b, c and two files
  EXPECT_FALSE(fs::exists(root));
}
