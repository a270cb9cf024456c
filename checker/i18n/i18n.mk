# checker/i18n/i18n.mk - the course's text in the learner's language: the language module the harness links,
# course-text (the scripts' tool), and the Chinese catalog compiled from checker/po/zh_CN/*.po with msgfmt.
# Included by the top-level Makefile. `make po-update` (course developers) extracts the marked text again
# and merges it into the .po files; checker/scripts/report-editions.py checks that nothing is missing.

I18N_DIR    := checker/i18n
PO_DIR      := checker/po
I18N_OBJ    := $(BUILD)/obj/i18n_i18n.o $(BUILD)/obj/i18n_width.o
COURSE_TEXT := $(BUILD)/bin/course-text
LOCALE_DIR  := $(BUILD)/locale
CATALOG_PO  := $(sort $(wildcard $(PO_DIR)/zh_CN/*.po))
CATALOG_MO  := $(LOCALE_DIR)/zh_CN/LC_MESSAGES/course.mo

# width.c keeps the glossary's words whole: glossary_terms.h, written from the glossary by editions.py --terms.
$(BUILD)/obj/i18n_%.o: $(I18N_DIR)/%.c $(I18N_DIR)/i18n.h $(I18N_DIR)/glossary_terms.h
	@mkdir -p $(@D)
	@$(CC) $(CFLAGS) -c $< -o $@

$(COURSE_TEXT): $(I18N_DIR)/course_text.c $(I18N_OBJ)
	@mkdir -p $(@D)
	@$(CC) $(CFLAGS) $^ -o $@

# The parts joined into one catalog and compiled (msgfmt comes with the gettext package, which deps.sh
# installs). Without msgfmt the course speaks English, and says so to whoever asked for Chinese.
$(CATALOG_MO): $(CATALOG_PO)
	@if command -v msgfmt >/dev/null 2>&1; then \
	    mkdir -p $(@D) && msgcat --use-first $^ | msgfmt --check -o $@ - ; \
	elif [ "$$($(COURSE_TEXT) wanted 2>/dev/null)" != en ]; then \
	    echo "The Chinese report needs msgfmt (sudo apt-get install gettext); until then it is in English."; \
	fi

# What every target that prints needs: the tool, and the catalog (the tool first: the catalog's rule asks it).
.PHONY: i18n po-update
i18n: $(COURSE_TEXT)
	@$(MAKE) --no-print-directory -s $(CATALOG_MO)

# Course developers: after changing or adding a message, extract the marked text again and merge it into
# each part's .po (new entries empty, changed ones fuzzy), then translate what msgattrib lists.
po-update:
	@rm -rf $(BUILD)/po && checker/i18n/extract.sh $(BUILD)/po
	@mkdir -p $(PO_DIR)/zh_CN
	@for pot in $(BUILD)/po/*.pot; do \
	    po=$(PO_DIR)/zh_CN/$$(basename $$pot .pot).po; \
	    if [ -f $$po ]; then msgmerge --quiet --no-wrap --backup=none --update $$po $$pot; \
	    else msginit --no-translator --no-wrap --locale=zh_CN.UTF-8 --input=$$pot --output-file=$$po && \
	         sed -i -e 's/^"Plural-Forms: .*/"Plural-Forms: nplurals=1; plural=0;\\n"/' \
	                -e 's/^"Last-Translator: .*/"Last-Translator: the course\x27s translators\\n"/' \
	                -e 's/^"Language-Team: .*/"Language-Team: Chinese (simplified)\\n"/' -e '/^msgstr\[[1-9]\] ""$$/d' $$po; fi; \
	    msgattrib --no-wrap --no-obsolete -o $$po $$po; \
	    echo "$$po: $$(msgattrib --untranslated $$po | grep -c '^msgid ' | awk '{ print ($$1 > 0 ? $$1 - 1 : 0) }') untranslated, $$(msgattrib --only-fuzzy $$po | grep -c '^msgid ' | awk '{ print ($$1 > 0 ? $$1 - 1 : 0) }') fuzzy"; \
	done
