#pragma once
// Errors of the configuration layer carry what went wrong as data (file, line,
// column, key path, kind) besides the message users read, so callers decide by
// kind and key path (e.g. sweep: "--vary names a key no scenario has") instead of
// searching the text.
#include <string>

#include "util/error.h"

namespace servesim {

enum class ConfigErrorKind { unknown_key, bad_value, missing, conflict };

class ConfigError : public Error {
 public:
  ConfigError(ConfigErrorKind kind, std::string file, int line, int column, std::string key_path,
              const std::string& message)
      : Error(message),
        kind_(kind),
        file_(std::move(file)),
        line_(line),
        column_(column),
        key_path_(std::move(key_path)) {}

  ConfigErrorKind kind() const { return kind_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }      // 1-based; 0 when unknown (a --set value, a built document)
  int column() const { return column_; }  // 1-based; 0 when unknown
  const std::string& key_path() const { return key_path_; }

 private:
  ConfigErrorKind kind_;
  std::string file_;
  int line_;
  int column_;
  std::string key_path_;
};

}  // namespace servesim
