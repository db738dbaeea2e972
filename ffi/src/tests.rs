//! The entry points under concurrent use: calls racing a destroy from
//! several threads get `OK` or `INVALID_HANDLE`, never a crash or a hang.

use std::sync::Barrier;
use std::thread;

use super::*;

fn new_engine() -> ChariotEngine {
    let mut engine: ChariotEngine = 0;
    // SAFETY: a writable handle; no callback.
    let status = unsafe { chariot_new(None, std::ptr::null_mut(), &raw mut engine) };
    assert_eq!(status, ChariotStatus::Ok);
    engine
}

#[test]
fn calls_racing_a_destroy_see_the_engine_or_nothing() {
    for round in 0..4 {
        let engine = new_engine();
        let start = Barrier::new(4);
        thread::scope(|s| {
            let sender = s.spawn(|| {
                start.wait();
                loop {
                    // SAFETY: NUL-terminated text.
                    match unsafe { chariot_send(engine, c"isready\ngo depth 3".as_ptr()) } {
                        ChariotStatus::Ok => {}
                        ChariotStatus::InvalidHandle => return,
                        other => panic!("send gave {other:?}"),
                    }
                }
            });
            let poller = s.spawn(|| {
                start.wait();
                let mut buf = [0u8; 4096];
                let mut len = 0usize;
                loop {
                    // SAFETY: `buf.len()` writable bytes and a writable length.
                    let status = unsafe {
                        chariot_poll(engine, buf.as_mut_ptr().cast(), buf.len(), &raw mut len, 5)
                    };
                    match status {
                        ChariotStatus::Ok | ChariotStatus::WouldBlock => {}
                        ChariotStatus::InvalidHandle => return,
                        other => panic!("poll gave {other:?}"),
                    }
                }
            });
            let switcher = s.spawn(|| {
                start.wait();
                loop {
                    // SAFETY: a NULL callback.
                    match unsafe { chariot_set_callback(engine, None, std::ptr::null_mut()) } {
                        ChariotStatus::Ok => thread::yield_now(),
                        ChariotStatus::InvalidHandle => return,
                        other => panic!("set_callback gave {other:?}"),
                    }
                }
            });
            start.wait();
            thread::sleep(std::time::Duration::from_millis(20 * round));
            assert_eq!(chariot_destroy(engine), ChariotStatus::Ok);
            sender.join().expect("sender");
            poller.join().expect("poller");
            switcher.join().expect("switcher");
        });
        assert_eq!(chariot_destroy(engine), ChariotStatus::InvalidHandle);
    }
}

#[test]
fn status_names_match_the_header_constants() {
    for status in STATUSES {
        // SAFETY: the library's static NUL-terminated strings.
        let name = unsafe { CStr::from_ptr(chariot_status_name(status as i32)) };
        assert_eq!(name, status.name());
        assert_eq!(ChariotStatus::from_code(status as i32), Some(status));
    }
    assert_eq!(STATUSES.len(), ChariotStatus::Internal as usize + 1);
    // SAFETY: as above.
    let unknown = unsafe { CStr::from_ptr(chariot_status_name(99)) };
    assert_eq!(unknown, c"CHARIOT_STATUS_UNKNOWN");
    // SAFETY: as above.
    let version = unsafe { CStr::from_ptr(chariot_version()) };
    assert_eq!(version.to_str().ok(), Some(protocol::VERSION));
}
