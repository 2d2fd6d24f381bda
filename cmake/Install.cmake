# `cmake --install build --prefix P`: the mapc tool, the public headers
# (mapc/runtime, mapc/native, mapc/mpi, mapc/mapc.h), the static libraries and the
# CMake package (lib/cmake/mapc: mapcConfig.cmake, its version file, the
# exported targets and mapc_generate). docs/native.md, "Installing".
include(CMakePackageConfigHelpers)

set(MAPC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mapc)

# Public names of the exported targets: mapc::runtime, mapc::native,
# mapc::compiler (the C++ API) and mapc::mapc (the tool). The compiler's
# own libraries are exported too, under their names, because the static
# mapc::compiler links them.
set_target_properties(MapcRuntime PROPERTIES EXPORT_NAME runtime)
set_target_properties(MapcNative PROPERTIES EXPORT_NAME native)
set_target_properties(MapcApi PROPERTIES EXPORT_NAME compiler)
target_include_directories(MapcRuntime PUBLIC
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(MapcNative PUBLIC
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(MapcRuntime PUBLIC cxx_std_17)
add_library(mapc::runtime ALIAS MapcRuntime)
add_library(mapc::native ALIAS MapcNative)
add_library(mapc::compiler ALIAS MapcApi)
# The installed tool finds its shared libraries (ANTLR, MPI, libLLVM with
# MAPC_LLVM_DYLIB) where it was linked.
set_target_properties(mapc PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS mapc MapcRuntime MapcNative MapcApi MapcFrontend MapcGrammar
                MapcPasses MapcIR
        EXPORT mapcTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/runtime/include/mapc/runtime
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mapc)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/runtime/native/include/mapc/native
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mapc)
install(FILES ${CMAKE_SOURCE_DIR}/api/include/mapc/mapc.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mapc)
install(EXPORT mapcTargets NAMESPACE mapc::
        DESTINATION ${MAPC_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/mapcConfig.cmake.in
  ${CMAKE_BINARY_DIR}/mapcConfig.cmake
  INSTALL_DESTINATION ${MAPC_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/mapcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/mapcConfig.cmake
              ${CMAKE_BINARY_DIR}/mapcConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/mapcGenerate.cmake
        DESTINATION ${MAPC_INSTALL_CMAKEDIR})

# The MPI target's library, mapc::mpi, when this build has MPI
# (docs/mpi.md): what `--emit=cpp --target=mpi` code links.
if(MAPC_HAVE_MPI)
  set_target_properties(MapcMpi PROPERTIES EXPORT_NAME mpi)
  target_include_directories(MapcMpi PUBLIC
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  add_library(mapc::mpi ALIAS MapcMpi)
  install(TARGETS MapcMpi EXPORT mapcTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/runtime/mpi/include/mapc/mpi
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mapc)
  # The driver's MPI half, which mapc runs for --target=mpi --run and
  # --emit=plan from its own directory (tools/mapc/CMakeLists.txt).
  set_target_properties(mapc-mpi PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
  install(TARGETS mapc-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
