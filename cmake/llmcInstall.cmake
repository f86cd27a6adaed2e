# `cmake --install`: llmc, llmc-run, the runtime library and its C headers, a CMake package (find_package(llmc),
# with llmc_add_model to compile a model into a library target) and a pkg-config file (llmc-runtime.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LLMC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/llmc)

# The compiler links LLVM's and MLIR's shared libraries where Debian puts them; the installed binary must
# find them without LD_LIBRARY_PATH.
set_target_properties(llmc PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
set_target_properties(llmc_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(llmc-run PROPERTIES EXPORT_NAME llmc-run)
install(TARGETS llmc llmc-run llmc_runtime
  EXPORT llmcTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY runtime/include/llmc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT llmcTargets NAMESPACE llmc:: DESTINATION ${LLMC_INSTALL_CMAKEDIR})

# How the installed package finds what the runtime links: PCRE2 the way this build found it.
if(LLMC_PCRE2_FOUND)
  set(LLMC_PCRE2_DEPENDENCY
      "find_dependency(PkgConfig)\npkg_check_modules(LLMC_PCRE2 REQUIRED QUIET IMPORTED_TARGET libpcre2-8)")
else()
  set(LLMC_PCRE2_DEPENDENCY "# PCRE2 is linked by its path: ${LLMC_PCRE2_LIBRARY}")
endif()
# Where the compiled models' OpenMP runtime lives (the manifests' library_dirs).
set(LLMC_OPENMP_LIBRARY_DIR "${LLVM_LIBRARY_DIR}")
configure_package_config_file(cmake/llmcConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/llmcConfig.cmake
  INSTALL_DESTINATION ${LLMC_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/llmcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/llmcConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/llmcConfigVersion.cmake
  DESTINATION ${LLMC_INSTALL_CMAKEDIR})

file(RELATIVE_PATH LLMC_PC_PREFIX_FROM_PCDIR
     "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
configure_file(cmake/llmc-runtime.pc.in ${CMAKE_CURRENT_BINARY_DIR}/llmc-runtime.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/llmc-runtime.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
