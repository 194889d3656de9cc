#include "engine/threads/for_each_worker.hpp"

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace chromalign {

void for_each_worker(int workers, const std::function<void(int worker)>& body) {
    std::exception_ptr failure;
    std::mutex mutex;
    // An exception leaving a helper thread would end the process: each call keeps its own.
    const auto call = [&](int w) {
        try {
            body(w);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    std::vector<std::thread> helpers;
    int started = 1;
    try {
        helpers.reserve(static_cast<size_t>(workers > 1 ? workers - 1 : 0));
        for (; started < workers; ++started) helpers.emplace_back(call, started);
    } catch (const std::exception&) {
        // std::system_error (EAGAIN) or bad_alloc: the helpers started so far stay joinable,
        // and the calls of those that did not start are made below, here.
    }
    call(0);
    for (int w = started; w < workers; ++w) call(w);
    for (std::thread& h : helpers) h.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace chromalign
