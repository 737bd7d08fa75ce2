// io/npy_format: the headers numpy writes read as numpy reads them, and the headers rmgsort writes
// byte for byte as numpy writes them, through every version; what is read and written again keeps
// everything.
#include "io/npy_format.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "npy_test_headers.hpp"

namespace rmgsort {
namespace {

using test::bytes_of;
using test::expect_error;
using test::header_dict;
using test::npy_with_text;
using test::text_of;

NpyHeader parse(const std::vector<std::byte>& bytes) { return parse_npy_header(bytes, "a.npy"); }

void expect_field(const NpyField& field, std::string_view name, std::string_view type, char kind, std::uint64_t offset,
                  std::uint64_t size) {
  SCOPED_TRACE("field '" + std::string(name) + "'");
  EXPECT_EQ(field.name, name);
  EXPECT_EQ(field.type, type);
  EXPECT_EQ(field.kind, kind);
  EXPECT_EQ(field.offset, offset);
  EXPECT_EQ(field.size, size);
  EXPECT_FALSE(field.nested);
  EXPECT_FALSE(field.is_subarray());
}

void expect_same_field(const NpyField& a, const NpyField& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.offset, b.offset);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.nested, b.nested);
}

// Everything but the count and the header's length, which depends on the count.
void expect_same_dtype(const NpyHeader& a, const NpyHeader& b) {
  EXPECT_EQ(a.descr, b.descr);
  EXPECT_EQ(a.structured, b.structured);
  expect_same_field(a.element, b.element);
  ASSERT_EQ(a.fields.size(), b.fields.size());
  for (std::size_t i = 0; i < a.fields.size(); ++i) expect_same_field(a.fields[i], b.fields[i]);
  EXPECT_EQ(a.item_size, b.item_size);
}

TEST(NpyFormat, SimpleDtypesAsNumpyWritesThem) {
  const NpyHeader u64 = parse(bytes_of(test::kU64Five));
  EXPECT_EQ(u64.version, 1);
  EXPECT_EQ(u64.header_bytes, 128u);
  EXPECT_EQ(u64.descr, "'<u8'");
  EXPECT_FALSE(u64.structured);
  EXPECT_TRUE(u64.fields.empty());
  expect_field(u64.element, "", "<u8", 'u', 0, 8);
  EXPECT_EQ(u64.item_size, 8u);
  EXPECT_EQ(u64.count, 5u);
  EXPECT_EQ(u64.data_bytes(), 40u);

  EXPECT_EQ(parse(bytes_of(test::kF32Empty)).count, 0u);
  expect_field(parse(bytes_of(test::kF32Empty)).element, "", "<f4", 'f', 0, 4);
  EXPECT_EQ(parse(bytes_of(test::kI32Million)).count, 1000000u);
  expect_field(parse(bytes_of(test::kI32Million)).element, "", "<i4", 'i', 0, 4);
  expect_field(parse(bytes_of(test::kDatetime)).element, "", "<M8[ns]", 'M', 0, 8);
  expect_field(parse(bytes_of(test::kUnicode)).element, "", "<U3", 'U', 0, 12);
  expect_field(parse(bytes_of(test::kBytes10)).element, "", "|S10", 'S', 0, 10);
  expect_field(parse(bytes_of(test::kBool)).element, "", "|b1", 'b', 0, 1);

  for (const auto& [bytes, version] : {std::pair{bytes_of(test::kU64Version2), 2}, {bytes_of(test::kU64Version3), 3}}) {
    const NpyHeader header = parse(bytes);
    EXPECT_EQ(header.version, version);
    EXPECT_EQ(header.header_bytes, 128u);
    EXPECT_EQ(header.count, 3u);
    expect_field(header.element, "", "<u8", 'u', 0, 8);
  }
}

TEST(NpyFormat, StructuredDtypesAsNumpyWritesThem) {
  const NpyHeader header = parse(bytes_of(test::kStructured));
  EXPECT_EQ(header.header_bytes, 256u);
  EXPECT_TRUE(header.structured);
  EXPECT_EQ(
      header.descr,
      "[('name', '<u8'), ('key', '|S10'), ('pad', '|V3'), ('sub', '<f4', (3,)), ('nested', [('a', '<i2'), ('b', '|u1')])]");
  ASSERT_EQ(header.fields.size(), 5u);
  expect_field(header.fields[0], "name", "<u8", 'u', 0, 8);
  expect_field(header.fields[1], "key", "|S10", 'S', 8, 10);
  expect_field(header.fields[2], "pad", "|V3", 'V', 18, 3);
  EXPECT_EQ(header.fields[3].name, "sub");
  EXPECT_EQ(header.fields[3].type, "<f4");
  EXPECT_EQ(header.fields[3].shape, "(3,)");
  EXPECT_EQ(header.fields[3].offset, 21u);
  EXPECT_EQ(header.fields[3].size, 12u);
  EXPECT_EQ(header.fields[3].description(), "'<f4' sub-array (3,)");
  EXPECT_EQ(header.fields[4].name, "nested");
  EXPECT_TRUE(header.fields[4].nested);
  EXPECT_EQ(header.fields[4].offset, 33u);
  EXPECT_EQ(header.fields[4].size, 3u);
  EXPECT_EQ(header.fields[4].description(), "a nested structure");
  EXPECT_EQ(header.item_size, 36u);
  EXPECT_EQ(header.count, 4u);

  // align=True: numpy writes the padding as a field named '' of type V, which is no field.
  const NpyHeader aligned = parse(bytes_of(test::kAligned));
  ASSERT_EQ(aligned.fields.size(), 2u);
  expect_field(aligned.fields[0], "a", "|u1", 'u', 0, 1);
  expect_field(aligned.fields[1], "b", "<u8", 'u', 8, 8);
  EXPECT_EQ(aligned.item_size, 16u);

  const NpyHeader titled = parse(bytes_of(test::kTitled));
  ASSERT_EQ(titled.fields.size(), 1u);
  expect_field(titled.fields[0], "t", "<u4", 'u', 0, 4);
}

TEST(NpyFormat, FieldNamesInEitherEncoding) {
  // Version 1.0 writes latin-1: the name is read as UTF-8, the descr kept as it was for writing again.
  const NpyHeader latin1 = parse(bytes_of(test::kLatin1Name));
  ASSERT_EQ(latin1.fields.size(), 1u);
  EXPECT_EQ(latin1.fields[0].name, "\xc3\xa9");
  EXPECT_EQ(latin1.descr, "[('\xe9', '<u4')]");
  // Version 3.0 writes UTF-8.
  const NpyHeader utf8 = parse(bytes_of(test::kUtf8Name));
  EXPECT_EQ(utf8.version, 3);
  ASSERT_EQ(utf8.fields.size(), 2u);
  expect_field(utf8.fields[0], "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "<u4", 'u', 0, 4);
  expect_field(utf8.fields[1], "v", "<f8", 'f', 4, 8);
}

TEST(NpyFormat, HeadersOfOlderWriters) {
  // numpy before 1.14 aligned the data to 16 bytes and kept no room for the shape to grow; Python 2
  // wrote longs with an L; other writers leave out the trailing comma or the '\n', use double quotes,
  // write the keys in another order, or spread the dict over lines.
  const std::string aligned16 = "{'descr': '<u8', 'fortran_order': False, 'shape': (5,), }";
  const std::string padded = aligned16 + std::string(80 - 10 - aligned16.size() - 1, ' ') + "\n";
  EXPECT_EQ(parse(npy_with_text(padded)).header_bytes, 80u);
  EXPECT_EQ(parse(npy_with_text(padded)).count, 5u);
  for (const std::string text : {"{'descr': '<u8', 'fortran_order': False, 'shape': (5L,), }",
                                 "{'descr': '<u8', 'fortran_order': False, 'shape': (5,)}",
                                 "{\"shape\": (5,), \"descr\": \"<u8\", \"fortran_order\": False}",
                                 "{\n  'descr': '<u8',\n  'fortran_order': False,\n  'shape': (5,),\n}\n",
                                 "  {'descr':'<u8','fortran_order':False,'shape':(5,)}\t\r\n  "}) {
    SCOPED_TRACE(text);
    const NpyHeader header = parse(npy_with_text(text));
    EXPECT_EQ(header.count, 5u);
    expect_field(header.element, "", "<u8", 'u', 0, 8);
  }
  // Byte orders numpy reads as little-endian here, or that do not apply.
  for (const std::string descr : {"'u8'", "'=u8'", "'|u8'", "'>u1'", "'>S3'", "'>V2'", "'a3'", "'<M8'", "'<m8[25ms]'"})
    EXPECT_NO_THROW((void)parse(npy_with_text(header_dict(descr)))) << descr;
}

TEST(NpyFormat, HeaderBytesNeeded) {
  const std::vector<std::byte> v1 = bytes_of(test::kU64Five);
  const std::vector<std::byte> v2 = bytes_of(test::kU64Version2);
  for (std::size_t size = 0; size < 10; ++size) {
    EXPECT_EQ(npy_header_bytes_needed(std::span(v1).first(size), "a.npy"), 10u) << size;
    EXPECT_EQ(npy_header_bytes_needed(std::span(v2).first(size), "a.npy"), 10u) << size;
  }
  for (std::size_t size = 10; size <= v1.size(); ++size) {
    EXPECT_EQ(npy_header_bytes_needed(std::span(v1).first(size), "a.npy"), 128u) << size;
    EXPECT_EQ(npy_header_bytes_needed(std::span(v2).first(size), "a.npy"), size < 12 ? 12u : 128u) << size;
  }
  EXPECT_TRUE(is_npy(v1));
  EXPECT_FALSE(is_npy(std::span(v1).first(5)));
  EXPECT_FALSE(is_npy(bytes_of("\x93NUMPz")));
  // The largest 1.0 header; a 2.0 one up to kNpyMaxHeaderBytes.
  std::vector<std::byte> longest = bytes_of("\x93NUMPY\x01\x00\xff\xff");
  EXPECT_EQ(npy_header_bytes_needed(longest, "a.npy"), 10u + 0xffff);
  longest = npy_with_text("", 2);
  const std::uint64_t text = kNpyMaxHeaderBytes - 12;
  for (std::size_t i = 0; i < 4; ++i) longest[8 + i] = std::byte((text >> (8 * i)) & 0xff);
  EXPECT_EQ(npy_header_bytes_needed(longest, "a.npy"), kNpyMaxHeaderBytes);
}

TEST(NpyFormat, WritesTheBytesNumpyWrites) {
  for (const std::vector<std::byte>& numpy :
       {bytes_of(test::kU64Five), bytes_of(test::kF32Empty), bytes_of(test::kI32Million), bytes_of(test::kStructured),
        bytes_of(test::kAligned), bytes_of(test::kU64Version3), bytes_of(test::kLatin1Name), bytes_of(test::kUtf8Name),
        bytes_of(test::kTitled), bytes_of(test::kDatetime), bytes_of(test::kUnicode), bytes_of(test::kBytes10),
        bytes_of(test::kBool)}) {
    const NpyHeader header = parse(numpy);
    EXPECT_EQ(text_of(npy_header_for(header, header.count)), text_of(numpy));
  }
  // np.save picks 1.0 where the header fits it, whatever version it read.
  EXPECT_EQ(text_of(npy_header_for(parse(bytes_of(test::kU64Version2)), 5)), text_of(bytes_of(test::kU64Five)));

  EXPECT_EQ(text_of(npy_index_header(5)), text_of(bytes_of(test::kU64Five)));
  EXPECT_EQ(text_of(npy_index_header(std::uint64_t{1} << 61)), text_of(bytes_of(test::kU64Huge)));
}

TEST(NpyFormat, GenerateWritesTheBytesNumpyWrites) {
  const auto generated = [](KeySpec key, std::size_t record, std::size_t offset, std::uint64_t count) {
    return text_of(npy_header_for_generate(RecordLayout::of(key, record, offset), count));
  };
  const KeySpec u64{KeyType::u64, 8};
  const KeySpec bytes10{KeyType::bytes, 10};
  EXPECT_EQ(generated(u64, 8, 0, 5), text_of(bytes_of(test::kU64Five)));
  EXPECT_EQ(generated(KeySpec{KeyType::i32, 4}, 4, 0, 1000000), text_of(bytes_of(test::kI32Million)));
  EXPECT_EQ(generated(bytes10, 10, 0, 7), text_of(bytes_of(test::kBytes10)));
  EXPECT_EQ(generated(u64, 13, 3, 3), text_of(bytes_of(test::kGeneratedU64At3)));
  EXPECT_EQ(generated(bytes10, 100, 0, 7), text_of(bytes_of(test::kGeneratedSortBenchmark)));
  EXPECT_EQ(generated(KeySpec{KeyType::f32, 4}, 12, 8, 0), text_of(bytes_of(test::kGeneratedF32Last)));
}

TEST(NpyFormat, GeneratedHeadersGiveTheirLayoutBack) {
  for (const KeySpec key : {KeySpec{KeyType::u32, 4}, KeySpec{KeyType::u64, 8}, KeySpec{KeyType::i32, 4},
                            KeySpec{KeyType::i64, 8}, KeySpec{KeyType::f32, 4}, KeySpec{KeyType::f64, 8},
                            KeySpec{KeyType::bytes, 1}, KeySpec{KeyType::bytes, 3}, KeySpec{KeyType::bytes, 8},
                            KeySpec{KeyType::bytes, 10}, KeySpec{KeyType::bytes, 16}, KeySpec{KeyType::bytes, 32}}) {
    for (const std::size_t record : {key.width, key.width + 1, std::size_t{12}, std::size_t{13}, std::size_t{100}}) {
      if (record < key.width) continue;
      for (const std::size_t offset : {std::size_t{0}, (record - key.width) / 2, record - key.width}) {
        SCOPED_TRACE(key.name() + " at " + std::to_string(offset) + " of " + std::to_string(record));
        const RecordLayout layout = RecordLayout::of(key, record, offset);
        const NpyHeader header = parse(npy_header_for_generate(layout, 7));
        EXPECT_EQ(header.count, 7u);
        EXPECT_EQ(header.header_bytes % 64, 0u);
        const bool whole = offset == 0 && record == key.width;
        const RecordLayout back =
            npy_record_layout(header, whole ? std::nullopt : std::optional<std::string_view>("key"), key, "g.npy");
        EXPECT_EQ(back.key_type, layout.key_type);
        EXPECT_EQ(back.key_size, layout.key_size);
        EXPECT_EQ(back.record_size, layout.record_size);
        EXPECT_EQ(back.key_offset, layout.key_offset);
        EXPECT_EQ(back.equal_nans, layout.equal_nans);
      }
    }
  }
}

TEST(NpyFormat, RoundTripsKeepEverything) {
  for (const std::vector<std::byte>& numpy :
       {bytes_of(test::kU64Five), bytes_of(test::kStructured), bytes_of(test::kAligned), bytes_of(test::kU64Version2),
        bytes_of(test::kU64Version3), bytes_of(test::kLatin1Name), bytes_of(test::kUtf8Name),
        bytes_of(test::kTitled)}) {
    const NpyHeader header = parse(numpy);
    for (const std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1} << 40}) {
      const std::vector<std::byte> written = npy_header_for(header, count);
      const NpyHeader again = parse(written);
      expect_same_dtype(again, header);
      EXPECT_EQ(again.count, count);
      EXPECT_EQ(again.version, header.version == 3 ? 3 : 1);
      EXPECT_EQ(again.header_bytes, written.size());
      EXPECT_EQ(written.size() % 64, 0u);
      EXPECT_EQ(written.back(), std::byte{'\n'});
      // Room for the count to grow to 21 digits: the header's length does not depend on it.
      EXPECT_EQ(written.size(), npy_header_for(header, 0).size());
    }
  }
}

TEST(NpyFormat, VersionTwoWhereOneIsTooShort) {
  // np.save of 5000 '<u4' fields f00000 .. f04999 writes a 95104-byte 2.0 header (numpy 1.24.2).
  std::string descr = "[";
  for (int i = 0; i < 5000; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "f%05d", i);
    descr += std::string(i == 0 ? "" : ", ") + "('" + name + "', '<u4')";
  }
  descr += "]";
  const NpyHeader header = parse(npy_with_text(header_dict(descr, "(1,)"), 2));
  EXPECT_EQ(header.fields.size(), 5000u);
  EXPECT_EQ(header.item_size, 20000u);
  const std::vector<std::byte> written = npy_header_for(header, 1);
  EXPECT_EQ(written.size(), 95104u);
  EXPECT_EQ(text_of(written).substr(6, 6), std::string("\x02\x00ts\x01\x00", 6));
  EXPECT_EQ(text_of(written).substr(95104 - 70),
            "rder': False, 'shape': (1,), }                                       \n");

  // At the border: 1.0 as long as the text's length fits its 16 bits. The header's length is that of
  // magic, version, length field, dict and '\n' with 1 to 64 spaces before the '\n' up to a multiple of 64.
  bool seen[3] = {};
  for (std::size_t name = 65300; name < 65450; ++name) {
    const std::string wide = "[('" + std::string(name, 'x') + "', '<u4')]";
    const std::size_t dict =
        std::string("{'descr': , 'fortran_order': False, 'shape': (5,), }").size() + wide.size() + 20;
    const std::size_t as_version1 = (10 + dict + 1) / 64 * 64 + 64;
    const std::size_t as_version2 = (12 + dict + 1) / 64 * 64 + 64;
    const std::vector<std::byte> written = npy_header_for(parse(npy_with_text(header_dict(wide), 2)), 5);
    const NpyHeader again = parse(written);
    const int version = as_version1 - 10 <= 0xffff ? 1 : 2;
    EXPECT_EQ(again.version, version) << name;
    EXPECT_EQ(written.size(), version == 1 ? as_version1 : as_version2) << name;
    EXPECT_EQ(again.fields.at(0).name.size(), name);
    seen[version] = true;
  }
  EXPECT_TRUE(seen[1] && seen[2]);
}

TEST(NpyFormat, SizeMustMatchTheShape) {
  const NpyHeader header = parse(bytes_of(test::kU64Five));
  EXPECT_NO_THROW(check_npy_size(header, 128 + 40, "a.npy"));
  for (const std::uint64_t size : {std::uint64_t{0}, std::uint64_t{127}, std::uint64_t{128}, std::uint64_t{167},
                                   std::uint64_t{169}, std::uint64_t{1} << 40})
    expect_error(
        [&] { check_npy_size(header, size, "a.npy"); },
        {"a.npy: its .npy header says shape (5,) of 8-byte items, 168 bytes with the 128-byte header, but the file has " +
         std::to_string(size) + " bytes"});
  EXPECT_NO_THROW(check_npy_size(parse(bytes_of(test::kF32Empty)), 128, "e.npy"));
  EXPECT_NO_THROW(check_npy_size(parse(bytes_of(test::kStructured)), 256 + 4 * 36, "s.npy"));
}

// Several inputs, and merge's, must be of one dtype: spelled differently, one type is still one.
TEST(NpyFormat, OneDtypeHoweverSpelled) {
  const auto header = [](std::string_view descr) { return parse(npy_with_text(header_dict(descr))); };
  EXPECT_TRUE(same_npy_dtype(header("'<u4'"), header("\"<u4\"")));
  EXPECT_TRUE(same_npy_dtype(header("'<u4'"), header("'=u4'")));
  EXPECT_TRUE(same_npy_dtype(header("'<u4'"), header("'u4'")));
  EXPECT_TRUE(same_npy_dtype(header("'|S8'"), header("'S8'")));
  EXPECT_TRUE(same_npy_dtype(header("[('k', '<f8'), ('v', '|u1', (3,))]"),
                             header("[(\"k\", \"=f8\"), ('v', 'u1', (3, ))]")));
  // What differs: the type, its size, a field's name, offset (padding) or shape, simple against structured.
  EXPECT_FALSE(same_npy_dtype(header("'<u4'"), header("'<i4'")));
  EXPECT_FALSE(same_npy_dtype(header("'<u4'"), header("'<u8'")));
  EXPECT_FALSE(same_npy_dtype(header("'<f4'"), header("'<u4'")));
  EXPECT_FALSE(same_npy_dtype(header("[('k', '<u8')]"), header("[('key', '<u8')]")));
  EXPECT_FALSE(same_npy_dtype(header("[('a', '|u1'), ('b', '<u8')]"), header("[('a', '|u1'), ('', '|V7'), ('b', '<u8')]")));
  EXPECT_FALSE(same_npy_dtype(header("[('v', '|u1', (2, 3))]"), header("[('v', '|u1', (3, 2))]")));
  EXPECT_FALSE(same_npy_dtype(header("'<u8'"), header("[('k', '<u8')]")));
  EXPECT_FALSE(same_npy_dtype(header("'<M8[ns]'"), header("'<M8[us]'")));
}

}  // namespace
}  // namespace rmgsort
