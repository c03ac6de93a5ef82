#include "http/receiver.h"

#include <doctest/doctest.h>

TEST_CASE("Receiver keeps the last response's headers by lower-case name, values trimmed") {
  http::Receiver rx;
  rx.take_header("HTTP/1.1 100 Continue\r\n");
  rx.take_header("X-Old: gone\r\n");
  rx.take_header("HTTP/1.1 200 OK\r\n");
  rx.take_header("ETag:  \"abc\"\r\n");
  rx.take_header("Retry-After: 3\r\n");
  rx.take_header("\r\n");
  CHECK(rx.header("etag") == "\"abc\"");
  CHECK(rx.header("retry-after") == "3");
  CHECK(rx.header("x-old").empty());
  CHECK(rx.headers().size() == 2);
}

TEST_CASE("Receiver streams a 2xx body to its reader, which can stop it") {
  std::string got;
  http::DataReader reader = [&](std::string_view d) {
    got += d;
    return got.size() < 6;
  };
  http::Receiver rx(&reader);
  CHECK(rx.take_body("abc", 200) == 3);
  CHECK(rx.take_body("def", 0) == 0);  // the reader said stop
  CHECK(got == "abcdef");
  CHECK(rx.streaming());
  CHECK(rx.stopped());
  CHECK(rx.body().empty());
}

TEST_CASE("Receiver collects an error answer even with a reader, up to its limit") {
  std::string got;
  http::DataReader reader = [&](std::string_view d) {
    got += d;
    return true;
  };
  http::Receiver rx(&reader, 5);
  CHECK(rx.take_body("<Err", 404) == 4);
  CHECK(rx.take_body("or>tail", 0) == 7);  // taken, but only the limit is kept
  CHECK(rx.body() == "<Erro");
  CHECK(got.empty());
  CHECK_FALSE(rx.streaming());
  CHECK_FALSE(rx.stopped());
}

TEST_CASE("Receiver without a reader collects every answer") {
  http::Receiver rx;
  rx.take_body("{\"kind\":", 200);
  rx.take_body("\"Pod\"}", 200);
  CHECK(rx.body() == "{\"kind\":\"Pod\"}");
  CHECK_FALSE(rx.streaming());
}
