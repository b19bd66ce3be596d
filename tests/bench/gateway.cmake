# The mock gateway: modelled STA commands per wall second, loopback Invoke round trip.
add_executable(bench_gateway ${CMAKE_CURRENT_LIST_DIR}/bench_gateway.cpp)
target_link_libraries(bench_gateway PRIVATE stormwatch_gateway)
stormwatch_warnings(bench_gateway)
add_dependencies(bench bench_gateway)
