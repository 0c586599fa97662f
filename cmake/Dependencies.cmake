# Every dependency comes from Debian packages; a missing one names the package.
find_package(PkgConfig QUIET)

function(cnuas_missing what package)
  message(FATAL_ERROR "${what} not found. Install it with: apt-get install ${package}")
endfunction()

if(NOT PkgConfig_FOUND)
  cnuas_missing("pkg-config" "pkg-config")
endif()

pkg_check_modules(SYSTEMC IMPORTED_TARGET systemc>=2.3.4)
if(NOT SYSTEMC_FOUND)
  cnuas_missing("SystemC 2.3.4 with TLM-2.0" "libsystemc-dev")
endif()

find_package(yaml-cpp QUIET)
if(NOT yaml-cpp_FOUND)
  cnuas_missing("yaml-cpp" "libyaml-cpp-dev")
endif()

find_package(Boost 1.74 QUIET COMPONENTS program_options)
if(NOT Boost_FOUND)
  cnuas_missing("Boost.Program_options" "libboost-program-options-dev")
endif()

find_package(fmt QUIET)
if(NOT fmt_FOUND)
  cnuas_missing("fmt" "libfmt-dev")
endif()

if(CNUAS_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    cnuas_missing("GoogleTest" "libgtest-dev")
  endif()
endif()

find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  cnuas_missing("nlohmann-json" "nlohmann-json3-dev")
endif()

pkg_check_modules(XXHASH IMPORTED_TARGET libxxhash)
if(NOT XXHASH_FOUND)
  cnuas_missing("xxHash" "libxxhash-dev")
endif()
