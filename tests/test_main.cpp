#include <cstdlib>

#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

__attribute__((constructor)) static void quiet_systemc_banner() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}
