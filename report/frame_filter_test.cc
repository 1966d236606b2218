#include "report/frame_filter.h"

#include <gtest/gtest.h>

namespace profkit::report {
namespace {

HeapFrame frame(std::string function) {
  HeapFrame f;
  f.function = std::move(function);
  return f;
}

TEST(FrameFilter, FoldsTheAllocatorAndContainerRunBeforeTheProgramsFrames) {
  const std::vector<HeapFrame> frames = {
      frame("operator new(unsigned long)"),
      frame("std::__new_allocator<int>::allocate(unsigned long, void const*)"),
      frame("std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(__gnu_cxx::"
            "__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)"),
      frame("std::vector<int, std::allocator<int> >::push_back(int const&)"),
      frame("parse_line(char const*)"), frame("main")};
  const FrameFilter f = FrameFilter::defaults();
  const auto items = f.fold(frames);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].frame, nullptr);
  EXPECT_EQ(items[0].folded, 4u);
  EXPECT_EQ(items[1].frame, &frames[4]);
  EXPECT_EQ(f.site_index(frames), 4u);
}

TEST(FrameFilter, ReturnTypesDoNotHideContainerFrames) {
  const FrameFilter f = FrameFilter::defaults();
  EXPECT_TRUE(f.folds(frame("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>"
                            "(__gnu_cxx::__normal_iterator<int*, std::vector<int> >, int&&)")));
  EXPECT_TRUE(f.folds(frame("std::unique_ptr<Foo>& std::vector<std::unique_ptr<Foo> >::"
                            "emplace_back<Foo*&>(Foo*&)")));
  EXPECT_FALSE(f.folds(frame("Archive::keep(std::string const&)")));
}

TEST(FrameFilter, AContextOfOnlyLibraryFramesIsShownWhole) {
  const std::vector<HeapFrame> frames = {frame("operator new(unsigned long)"), frame("malloc")};
  const auto items = FrameFilter::defaults().fold(frames);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].frame, &frames[0]);
}

TEST(FrameFilter, ShowAllFoldsNothingAndABadRegexIsAnError) {
  const std::vector<HeapFrame> frames = {frame("operator new(unsigned long)"), frame("main")};
  EXPECT_EQ(FrameFilter().fold(frames).size(), 2u);
  EXPECT_FALSE(FrameFilter::hiding("(unclosed").has_value());
  auto mine = FrameFilter::hiding("^main$");
  ASSERT_TRUE(mine.has_value());
  EXPECT_TRUE(mine->folds(frames[1]));
  EXPECT_FALSE(mine->folds(frames[0]));
}

TEST(ShortFunctionName, ElidesTemplateArgumentsAndParameters) {
  EXPECT_EQ(short_function_name("std::vector<std::pair<int, long>, std::allocator<std::pair<int, "
                                "long> > >::_M_realloc_insert<int>(int&&)"),
            "std::vector<...>::_M_realloc_insert<...>");
  EXPECT_EQ(short_function_name("parse(char const*) const"), "parse");
  EXPECT_EQ(short_function_name("main"), "main");
  EXPECT_EQ(short_function_name("operator new[](unsigned long)"), "operator new[]");
  EXPECT_EQ(short_function_name("Foo::operator<(Foo const&) const"), "Foo::operator<");
  EXPECT_EQ(short_function_name("Foo::operator()(int)"), "Foo::operator()");
  EXPECT_EQ(short_function_name("std::map<int, int>::operator[](int const&)"),
            "std::map<...>::operator[]");
  // Demanglers print a return type before template specializations.
  EXPECT_EQ(short_function_name("void std::vector<int, std::allocator<int> >::_M_realloc_insert"
                                "<int>(__gnu_cxx::__normal_iterator<int*, std::vector<int> >, int&&)"),
            "std::vector<...>::_M_realloc_insert<...>");
  EXPECT_EQ(short_function_name("std::unique_ptr<Foo, std::default_delete<Foo> >& std::vector<"
                                "std::unique_ptr<Foo> >::emplace_back<Foo*&>(Foo*&)"),
            "std::vector<...>::emplace_back<...>");
  EXPECT_EQ(short_function_name("(anonymous namespace)::helper(int)"), "(anonymous namespace)::helper");
  EXPECT_EQ(short_function_name("Foo::operator<<(std::ostream&)"), "Foo::operator<<");
  EXPECT_EQ(short_function_name("read_file[abi:cxx11](char const*)"), "read_file[abi:cxx11]");
}

}  // namespace
}  // namespace profkit::report
