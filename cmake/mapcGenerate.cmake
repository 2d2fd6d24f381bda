# mapc_generate(TARGET tgt MAP file.map
#               [TARGET_KIND native|sim] [NAMESPACE ns] [HEADER name.h]
#               [OUTPUT_DIR dir])
#
# Runs mapc on FILE.map at build time, as protobuf_generate runs protoc:
# `--emit=header` and `--emit=cpp` for the target kind (default native),
# into OUTPUT_DIR (default ${CMAKE_CURRENT_BINARY_DIR}/mapc_generated), and
# adds the source to `tgt`, the directory to its include path and the
# library the emitted code needs (mapc::native, or mapc::runtime for sim).
# The header is HEADER (default: the .map file's name with .h). NAMESPACE
# (native only) names the C++ namespace of the functions (default
# mapc_program); give each .map file of one target its own. The files are
# made again when the .map file or mapc changes. MAPC_EXECUTABLE overrides
# the mapc that runs (default: the package's mapc::mapc).
function(mapc_generate)
  cmake_parse_arguments(ARG "" "TARGET;MAP;TARGET_KIND;NAMESPACE;HEADER;OUTPUT_DIR"
                        "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mapc_generate: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET OR NOT ARG_MAP)
    message(FATAL_ERROR "mapc_generate: give TARGET and MAP")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "mapc_generate: ${ARG_TARGET} is not a target")
  endif()
  if(NOT ARG_TARGET_KIND)
    set(ARG_TARGET_KIND native)
  endif()
  if(ARG_TARGET_KIND STREQUAL "native")
    set(library mapc::native)
  elseif(ARG_TARGET_KIND STREQUAL "sim")
    set(library mapc::runtime)
    if(ARG_NAMESPACE)
      message(FATAL_ERROR "mapc_generate: NAMESPACE needs TARGET_KIND native")
    endif()
  else()
    message(FATAL_ERROR "mapc_generate: TARGET_KIND is native or sim, not "
                        "'${ARG_TARGET_KIND}'")
  endif()
  if(MAPC_EXECUTABLE)
    set(tool ${MAPC_EXECUTABLE})
  else()
    set(tool mapc::mapc)
  endif()
  get_filename_component(map "${ARG_MAP}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(stem "${map}" NAME_WE)
  if(NOT ARG_HEADER)
    set(ARG_HEADER "${stem}.h")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/mapc_generated")
  endif()
  set(header "${ARG_OUTPUT_DIR}/${ARG_HEADER}")
  set(source "${ARG_OUTPUT_DIR}/${stem}.cpp")
  set(options --target=${ARG_TARGET_KIND} --header-name=${ARG_HEADER})
  if(ARG_NAMESPACE)
    list(APPEND options --cpp-namespace=${ARG_NAMESPACE})
  endif()
  add_custom_command(
    OUTPUT "${header}" "${source}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${ARG_OUTPUT_DIR}"
    COMMAND ${tool} "${map}" --emit=header ${options} -o "${header}"
    COMMAND ${tool} "${map}" --emit=cpp ${options} -o "${source}"
    DEPENDS "${map}" ${tool}
    COMMENT "mapc: ${ARG_MAP} -> ${ARG_HEADER}, ${stem}.cpp"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE "${header}" "${source}")
  target_include_directories(${ARG_TARGET} PUBLIC "${ARG_OUTPUT_DIR}")
  target_link_libraries(${ARG_TARGET} PUBLIC ${library})
endfunction()
