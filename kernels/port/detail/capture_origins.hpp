// Which stream began each open stream capture, keyed by the GPU runtime's capture id (cuda/hip backends). A stream
// that joins a capture by waiting on an event recorded inside it (cross-stream capture) reports the id of the
// capture it joined; this table turns that id into the origin stream for RuntimeObserver::on_capture_join.
#pragma once

namespace dsv4::port::detail {

void note_capture_begin(unsigned long long capture_id, const void* origin_stream);
const void* capture_origin(unsigned long long capture_id);  // nullptr when unknown
void note_capture_end(unsigned long long capture_id);

}  // namespace dsv4::port::detail
