// The translation unit that owns runner's precompiled header (cmake/precompiled_headers.cmake).
// It defines nothing: the headers come in through the precompiled header itself.
