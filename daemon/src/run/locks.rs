//! One async lock per job key in flight: two files with the same content
//! are judged once.

use super::*;

/// One async lock per job key in flight, removed when no one holds or
/// waits for it.
#[derive(Debug, Default)]
pub(super) struct KeyLocks(std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>);

pub(super) struct KeyGuard<'a> {
    pub(super) locks: &'a KeyLocks,
    pub(super) key: String,
    pub(super) mutex: Arc<tokio::sync::Mutex<()>>,
    pub(super) guard: Option<OwnedMutexGuard<()>>,
}

impl KeyLocks {
    pub(super) fn map(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Mutex<()>>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) async fn lock(&self, key: &str) -> KeyGuard<'_> {
        let mutex = self.map().entry(key.to_owned()).or_default().clone();
        let guard = mutex.clone().lock_owned().await;
        KeyGuard {
            locks: self,
            key: key.to_owned(),
            mutex,
            guard: Some(guard),
        }
    }
}

impl Drop for KeyGuard<'_> {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut map = self.locks.map();
        // Only the map and this guard still hold it: nobody is waiting.
        if Arc::strong_count(&self.mutex) == 2 {
            map.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn key_locks_are_removed_when_free() {
        let locks = KeyLocks::default();
        {
            let _a = locks.lock("k").await;
            assert_eq!(locks.map().len(), 1);
        }
        assert!(locks.map().is_empty());
    }
}
