//===- LruCache.h - Bounded least-recently-used cache -----------*- C++ -*-===//
//
// A small LRU map used for tensor maps: launches with the same argument
// signature reuse the encoded map, and the bound keeps a long-running process
// that sees many shapes from growing without limit. Not thread-safe: the
// owner holds a lock.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_LRUCACHE_H
#define TILEC_RUNTIME_LRUCACHE_H

#include <cstddef>
#include <list>
#include <unordered_map>
#include <utility>

namespace tilec::rt {

template <typename Key, typename Value, typename Hash> class LruCache {
public:
  explicit LruCache(size_t capacity) : capacity(capacity ? capacity : 1) {}

  /// The value for \p key, now the most recently used, or null.
  const Value *find(const Key &key) {
    auto it = index.find(key);
    if (it == index.end())
      return nullptr;
    entries.splice(entries.begin(), entries, it->second);
    return &it->second->second;
  }

  /// Inserts or replaces \p key, evicting the least recently used entry when
  /// full.
  void insert(const Key &key, const Value &value) {
    auto it = index.find(key);
    if (it != index.end()) {
      it->second->second = value;
      entries.splice(entries.begin(), entries, it->second);
      return;
    }
    if (entries.size() == capacity) {
      index.erase(entries.back().first);
      entries.pop_back();
    }
    entries.emplace_front(key, value);
    index.emplace(key, entries.begin());
  }

  size_t size() const { return entries.size(); }

private:
  using Entry = std::pair<Key, Value>;
  size_t capacity;
  std::list<Entry> entries; // most recently used first
  std::unordered_map<Key, typename std::list<Entry>::iterator, Hash> index;
};

} // namespace tilec::rt

#endif // TILEC_RUNTIME_LRUCACHE_H
