# exercise.mk - what `make` does inside an exercise's folder (its Makefile includes this file): it runs
# the course's Makefile at the top of the repository. `make` alone grades this exercise; `make hint`,
# `make solution`, `make reset`, `make restore`, `make watch` and `make predict` act on it; any other
# goal (`make ex03`, `make check`) is passed on as it is.
THIS_EXERCISE := ex$(firstword $(subst -, ,$(notdir $(CURDIR))))
COURSE_ROOT := $(abspath $(CURDIR)/../..)
FORWARD := $(MAKE) --no-print-directory -C $(COURSE_ROOT)
FORWARD_ACTIONS := reset restore hint solution watch predict

.PHONY: grade
grade:
	@$(FORWARD) $(THIS_EXERCISE)
# One forwarding for all the goals together (so that `make reset ex03` stays one command).
%:
	@$(if $(filter $@,$(firstword $(MAKECMDGOALS))),$(FORWARD) $(MAKECMDGOALS) $(if $(filter $(FORWARD_ACTIONS),$(MAKECMDGOALS)),$(if $(filter ex%,$(MAKECMDGOALS)),,$(THIS_EXERCISE))),:)
