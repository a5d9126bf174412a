# rapidutils: build, test, install. `make install` and `make test` are all a newcomer needs.
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
# Installed names are $(PROG_PREFIX)yes etc.; the multi-call binary recognises any prefix.
PROG_PREFIX ?=
# links: one multi-call binary plus symlinks to it; separate: one binary per tool.
INSTALL_MODE ?= links
CARGO       ?= cargo
TOOLS       := cat wc yes
RELEASE     := target/release
# The GNU 9.12 reference: the shared copy beside the checkout when there is one, else ours.
ORACLE_SH   := $(firstword $(wildcard ../shared/tools/gnu-oracle.sh) ci/gnu-oracle.sh)

.PHONY: all build test test-deps install uninstall bench clean

all: build

build:
	$(CARGO) build --release --bins

# Everything the tests need: strace (fault injection), GNU time (peak memory) and the GNU
# coreutils 9.12 oracle in /opt/gnu-oracle (root).
test-deps:
	@{ command -v strace >/dev/null && test -x /usr/bin/time; } || { apt-get update -qq && apt-get install -y -qq strace time; }
	@bash $(ORACLE_SH) >/dev/null || true
	@/opt/gnu-oracle/bin/yes --version | head -n1

# The whole test suite: unit, differential (against GNU 9.12), shape and fault-injection tests,
# once with the zero-copy paths and once with the portable fallbacks only.
test: test-deps
	$(CARGO) test --release
	$(CARGO) test --release --features portable

install: build
	install -d "$(DESTDIR)$(BINDIR)"
ifeq ($(INSTALL_MODE),links)
	install -m 755 $(RELEASE)/rapidutils "$(DESTDIR)$(BINDIR)/rapidutils"
	for t in $(TOOLS); do ln -sf rapidutils "$(DESTDIR)$(BINDIR)/$(PROG_PREFIX)$$t"; done
else
	for t in $(TOOLS); do install -m 755 $(RELEASE)/$$t "$(DESTDIR)$(BINDIR)/$(PROG_PREFIX)$$t"; done
endif

uninstall:
ifeq ($(INSTALL_MODE),links)
	rm -f "$(DESTDIR)$(BINDIR)/rapidutils"
endif
	for t in $(TOOLS); do rm -f "$(DESTDIR)$(BINDIR)/$(PROG_PREFIX)$$t"; done

# Whole-command comparison with GNU 9.1, GNU 9.12, uutils and busybox (needs hyperfine, and
# `cargo install uu_yes --root /opt/uutils` for uutils).
bench: test-deps
	python3 benches/bench.py

clean:
	$(CARGO) clean
