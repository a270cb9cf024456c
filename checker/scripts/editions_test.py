#!/usr/bin/env python3
"""editions_test.py - each rule of editions.py fails on a bad example and passes the good one it spoils.

    editions_test.py       run every test; exit 1 on a failure (editions.py, checking every page, runs them first)
Plain python3 (unittest), no packages.
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import editions  # noqa: E402

ENGLISH = """English | [简体中文](page.zh-CN.md)

# A page

The tree adds pairs in shared memory: 1.8 times fewer instructions, 4,096 threads.

```
int t = sdata[tid] + sdata[tid + 16];   // every lane has read
__syncwarp();
```

```
 lane:    0   1   2   3
 A():     x   .   x   .     16 of 32 lanes active
```

## Hints

- Which thread writes the result?
"""

CHINESE = """[English](page.md) | 简体中文

# 一页

树形归约（tree reduction）在共享内存里两两相加：指令数少约 45%（1.8 倍之差），共 4096 个线程。
这个 kernel 的每个 warp 都用到 `sdata[tid]`。

```
int t = sdata[tid] + sdata[tid + 16];   // 每个 lane 都已读完
__syncwarp();
```

```
 lane:    0   1   2   3
 A():     x   .   x   .     32 个 lane 中 16 个活跃
```

## 提示

- 哪个线程写出结果？
"""

KEPT = {"kernel", "warp", "lane"}
FORMS = {"讲义": "课文", "FP16": "fp16"}


class EditionsTest(unittest.TestCase):
    def check(self, chinese, english=ENGLISH):
        """The problems editions.py finds in a pair of pages written to a scratch folder."""
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "page.md"), "w", encoding="utf-8") as f:
                f.write(english)
            with open(os.path.join(folder, "page.zh-CN.md"), "w", encoding="utf-8") as f:
                f.write(chinese)
            return editions.check_pair(os.path.join(folder, "page.md"), KEPT, FORMS)

    def assert_caught(self, chinese, words, english=ENGLISH):
        problems = self.check(chinese, english)
        self.assertTrue(any(words in p for p in problems), f"no problem says {words!r}: {problems}")

    def test_the_good_pair_is_in_step(self):
        self.assertEqual(self.check(CHINESE), [])

    def test_a_missing_link_to_the_twin_is_caught(self):
        self.assert_caught(CHINESE.replace("[English](page.md) | ", ""), "does not link to page.md")

    def test_headings_of_other_levels_are_caught(self):
        self.assert_caught(CHINESE.replace("## 提示", "### 提示"), "heading 2")

    def test_code_changed_in_one_edition_is_caught(self):
        self.assert_caught(CHINESE.replace("tid + 16]", "tid + 8]"), "differs from the English one")

    def test_a_changed_identifier_is_caught_even_beside_a_comment(self):
        self.assert_caught(CHINESE.replace("__syncwarp();", "__syncthreads();"), "differs from the English")

    def test_a_changed_diagram_is_caught(self):
        self.assert_caught(CHINESE.replace(" A():     x   .   x   .", " A():     x   x   x   ."),
                           "differs from the English")

    def test_english_left_in_a_diagram_is_caught_as_code(self):
        self.assert_caught(CHINESE.replace("32 个 lane 中 16 个活跃", "16 of 32 lanes busy"),
                           "differs from the English")

    def test_comments_and_annotations_may_be_translated(self):
        self.assertEqual(self.check(CHINESE.replace("每个 lane 都已读完", "读完")), [])

    def test_a_missing_code_block_is_caught(self):
        diagram = CHINESE[CHINESE.index("```\n lane"):CHINESE.index("## 提示")]
        self.assert_caught(CHINESE.replace(diagram, ""), "in one edition only")

    def test_a_table_with_other_columns_is_caught(self):
        english = ENGLISH.replace("## Hints", "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n## Hints")
        chinese = CHINESE.replace("## 提示", "| 甲 |\n| --- |\n| 1 |\n\n## 提示")
        self.assert_caught(chinese, "do not have the English rows and columns", english)

    def test_a_missing_number_is_caught(self):
        self.assert_caught(CHINESE.replace("4096", "四千"), "the English numbers 4096")

    def test_a_missing_hint_is_caught(self):
        english = ENGLISH + "- Which block writes it?\n"
        self.assert_caught(CHINESE, "1 hints where the English has 2", english)

    def test_a_ratio_written_as_a_fraction_is_caught(self):
        self.assert_caught(CHINESE.replace("少约 45%（1.8 倍之差）", "只有其 1/1.8"), "the ratio \"1/1.8\"")

    def test_an_english_word_left_in_the_prose_is_caught(self):
        self.assert_caught(CHINESE.replace("两两相加", "两两 add"), "English words in the Chinese prose: add")

    def test_a_plural_of_a_kept_term_is_caught(self):
        self.assert_caught(CHINESE.replace("每个 warp", "每个 warps"), "English words in the Chinese prose: warps")

    def test_names_identifiers_and_inline_code_are_not_english_words(self):
        chinese = CHINESE.replace("共 4096 个线程。", "共 4096 个线程，在 Volta、PTX、v6 和 `make ex01` 上一样。")
        self.assertEqual(self.check(chinese), [])

    def test_quoted_english_output_is_not_an_english_word(self):
        self.assertEqual(self.check(CHINESE.replace("共 4096", "报告说“Fix the first error above”，共 4096")), [])

    def test_a_repeated_gloss_is_caught(self):
        chinese = CHINESE.replace("这个 kernel", "树形归约（tree reduction）的这个 kernel")
        self.assert_caught(chinese, "the gloss \"（tree reduction）\" appears 2 times")

    def test_a_line_break_between_two_chinese_characters_is_caught(self):
        self.assert_caught(CHINESE.replace("两两相加", "两两\n相加"), "1 line break between two Chinese characters")

    def test_a_line_break_after_a_full_width_mark_or_beside_a_space_is_fine(self):
        chinese = CHINESE.replace("两两相加：", "两两相加：\n").replace("共 4096", "共\n4096")
        self.assertEqual(self.check(chinese), [])

    def test_a_line_break_in_a_code_block_is_not_prose(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "page.zh-CN.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write("# 一页\n\n```\n 第一行说到这\n 里就断了\n```\n\n    缩进的图也一\n    样\n")
            self.assertEqual(editions.Page(path).broken_words(), [])

    def test_a_form_the_glossary_rejects_is_caught(self):
        self.assert_caught(CHINESE.replace("共 4096 个线程", "讲义里说共 4096 个线程"),
                           "\"讲义\", a form the glossary rejects: say \"课文\"")

    def test_a_rejected_latin_form_is_caught_as_a_word_only(self):
        self.assert_caught(CHINESE.replace("共 4096", "FP16 共 4096"), "\"FP16\", a form the glossary rejects")
        self.assertEqual(self.check(CHINESE.replace("共 4096", "CUDA_FP16_TYPES 和 BFP16 共 4096")), [])

    def test_a_form_the_glossary_rejects_is_caught_in_a_catalog(self):
        with tempfile.TemporaryDirectory() as folder:
            po = os.path.join(folder, "part.po")
            with open(po, "w", encoding="utf-8") as f:
                f.write('msgid ""\nmsgstr ""\n\nmsgid "See the lesson %s."\nmsgstr "见讲义 %s。"\n\n'
                        'msgid "It is 2 times as fast."\nmsgstr "它快 1 倍。"\n')
            problems = editions.catalog_problems(FORMS, editions.form_pattern(FORMS), [po])
        self.assertEqual(sorted(p.kind for p in problems), ["ratio", "rejected"], problems)

    def test_the_glossary_lists_its_rejected_forms(self):
        with tempfile.TemporaryDirectory() as folder:
            glossary = os.path.join(folder, "glossary.zh-CN.md")
            with open(glossary, "w", encoding="utf-8") as f:
                f.write("| English | 中文 | 不用的写法 | 含义 |\n| --- | --- | --- | --- |\n"
                        "| lesson | 课文 | 讲义、“课程讲义” | 一篇 |\n| warp | warp（线程束） |  | 32 个线程 |\n\n"
                        "| English | 中文 | 含义 |\n| --- | --- | --- |\n| thread | 线程 | 执行 |\n")
            self.assertEqual(editions.rejected_forms(glossary), {"讲义": "课文", "课程讲义": "课文"})

    def test_the_column_of_rejected_forms_is_the_chinese_editions_own(self):
        english = ENGLISH.replace("## Hints", "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n## Hints")
        chinese = CHINESE.replace("## 提示", "| 甲 | 不用的写法 | 乙 |\n| --- | --- | --- |\n| 1 | 壹 | 2 |\n\n## 提示")
        self.assertEqual(self.check(chinese, english), [])

    def test_one_english_heading_has_one_translation(self):
        with tempfile.TemporaryDirectory() as folder:
            pages = []
            for name, chinese in (("a", CHINESE), ("b", CHINESE.replace("## 提示", "## 提示一下"))):
                for suffix, text in ((".md", ENGLISH), (".zh-CN.md", chinese)):
                    with open(os.path.join(folder, name + suffix), "w", encoding="utf-8") as f:
                        f.write(text)
                pages.append((editions.Page(os.path.join(folder, name + ".md")),
                              editions.Page(os.path.join(folder, name + ".zh-CN.md")), name + ".zh-CN.md"))
            problems = editions.heading_problems(pages)
        self.assertTrue(any("\"## 提示一下\" here and \"## 提示\" in a.zh-CN.md" in p for p in problems), problems)

    def test_an_ambiguous_ratio_is_caught(self):
        for ratio in ("快 1.8 倍", "高约 2 到 3 倍", "超出 14 倍", "1.8x", "超出约五倍", "大出几百倍"):
            self.assert_caught(CHINESE.replace("少约 45%（1.8 倍之差）", ratio + "（1.8）"), f"\"{ratio}\"")
        self.assert_caught(CHINESE.replace("两两相加", "每隔 3 列相加"), "\"每隔 3 列\" reads as every (N + 1)-th")
        self.assert_caught(CHINESE.replace("两两相加", "每隔三个值相加"), "\"每隔三个值\" reads as every (N + 1)-th")

    def test_a_ratio_cut_by_a_line_break_is_caught(self):
        self.assert_caught(CHINESE.replace("少约 45%（1.8 倍之差）", "快\n1.8 倍"), "\"快1.8 倍\"")

    def test_a_ratio_said_as_a_multiple_is_fine(self):
        chinese = CHINESE.replace("少约 45%（1.8 倍之差）", "速度是 v3 的 1.8 倍，每 4 列一个，每隔一个值，最高 2 倍，0x7FDE")
        self.assertEqual(self.check(chinese), [])

    def test_the_glossary_lists_its_kept_terms(self):
        with tempfile.TemporaryDirectory() as folder:
            glossary = os.path.join(folder, "glossary.zh-CN.md")
            with open(glossary, "w", encoding="utf-8") as f:
                f.write("| English | 中文 | 含义 |\n| --- | --- | --- |\n| warp | warp（线程束） | 32 个线程 |\n"
                        "| grid-stride loop | grid-stride 循环 | 跨步 |\n| thread | 线程 | 执行 |\n"
                        "保留英文的名称：nvcc、\nncu。\n\n其余 others\n")
            kept = editions.kept_terms(glossary)
        self.assertEqual(kept, {"warp", "grid-stride", "nvcc", "ncu"})


if __name__ == "__main__":
    unittest.main(verbosity=1 if "-q" in sys.argv else 2, argv=[a for a in sys.argv if a != "-q"])
