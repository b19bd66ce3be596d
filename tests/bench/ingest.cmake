# Client ingest of data changes from the embedded mock over loopback gRPC.
add_executable(bench_ingest ${CMAKE_CURRENT_LIST_DIR}/bench_ingest.cpp)
target_link_libraries(bench_ingest PRIVATE stormwatch_gateway stormwatch_client stormwatch_wire)
stormwatch_warnings(bench_ingest)
add_dependencies(bench bench_ingest)
