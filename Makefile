# rapidutils: build, test, install. `make install` and `make test` are all a newcomer needs.

# Layouts. replace (default): the tools' plain names go into BINDIR, by default /usr/local/bin,
# ahead of the system's on PATH. distro: the multi-call binary in BINDIR (PREFIX defaults to
# /usr), the plain names in $(PREFIX)/lib/rapidutils/bin (put it first on PATH to use them),
# the tools' pages as rapidutils-NAME.1 and completions for `rapidutils` only: nothing a
# system's coreutils owns is overwritten.
LAYOUT      ?= replace
ifeq ($(LAYOUT),distro)
PREFIX      ?= /usr
TOOLDIR     ?= $(PREFIX)/lib/rapidutils/bin
TOOL_MAN_PREFIX ?= rapidutils-
TOOL_COMPLETIONS ?= no
else ifneq ($(LAYOUT),replace)
$(error LAYOUT must be replace or distro, not '$(LAYOUT)')
endif
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
# Where the tools' names go (links or binaries).
TOOLDIR     ?= $(BINDIR)
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# Debian's zsh reads packages' completions from /usr/share/zsh/vendor-completions.
ZSHCOMPDIR  ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
# bash-completion binds its generic _longopt to cat and wc when it starts, so their own files in
# BASHCOMPDIR would never be loaded on demand; a file in its compatibility directory, read after
# those bindings, loads them. Only for system-wide prefixes (bash-completion reads no other);
# for a per-user install, see the README.
BASHCOMPATDIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),/etc/bash_completion.d)
# fish searches vendor_completions.d only in the directories of XDG_DATA_DIRS, and where that is
# unset (a login shell on Debian 12) only in its own, /usr/share: for PREFIX=/usr/local a file in
# fish's system conf.d, which every fish reads at start, adds FISHCOMPDIR to its search path.
FISHCONFDIR ?= $(if $(filter /usr/local,$(PREFIX)),/etc/fish/conf.d)
# Installed names are $(PROG_PREFIX)yes etc. (pages and completions too); the multi-call binary
# recognises any prefix.
PROG_PREFIX ?=
TOOL_MAN_PREFIX ?= $(PROG_PREFIX)
# Install completions for the tools' names (yes: replace layout; no: distro layout).
TOOL_COMPLETIONS ?= yes
# links: one multi-call binary plus symlinks to it; separate: one binary per tool.
INSTALL_MODE ?= links
ifeq ($(filter links separate,$(INSTALL_MODE)),)
$(error INSTALL_MODE must be links or separate, not '$(INSTALL_MODE)')
endif
# Record the directories `make install` creates in DIRLIST, so that `make uninstall` removes
# those it leaves empty, and only those (by default not for staged installs into a DESTDIR).
RECORD_DIRS ?= $(if $(DESTDIR),no,yes)
DIRLIST     ?= $(DATADIR)/rapidutils/installed-directories
# Install binaries already built in this directory instead of running cargo (the tests do).
BINARIES    ?=
CARGO       ?= cargo
TOOLS       := cat wc yes
RELEASE     := $(or $(BINARIES),target/release)
# The GNU 9.12 reference, installed into /opt/gnu-oracle by the repository's installer.
ORACLE_SH   := ci/gnu-oracle.sh
# Installs Debian packages, apt's and dpkg's progress going to target/apt.log.
APT_INSTALL := bash ci/apt-install.sh

.PHONY: all help build test test-deps stress test-gnu test-cpu-models mca test-aarch64 aarch64-deps test-aarch64-suite test-s390x s390x-deps test-musl \
	cross-deps check-cross install uninstall bench bench-peers speed-table clean man completions generate \
	packaging-deps dist package-deb package-rpm package-arch check-freebsd-port check-homebrew check-packaging \
	check-reproducible check-system-package check-distro-build check-uninstall

all: build

# One line per target (a target missing here is a bug: `make help` lists them all).
define HELP
all                    = build (the default)
build                  cargo build --release --bins: target/release/{rapidutils,yes,cat,wc}
install                build, then install (PREFIX, DESTDIR, LAYOUT, ...: see the README)
uninstall              remove what `make install` with the same variables installed
test                   install the test prerequisites, then the whole suite; ends with one count line
test-deps              the test prerequisites (root): strace, valgrind, GNU time, mandoc, locales, GNU 9.12 oracle, ...
stress                 longer runs under load: files changing while read, early-closing readers, full disks, signals
test-gnu               GNU's own tests for cat, wc and yes against the release binaries
test-cpu-models        the x86-64 kernels under qemu-x86_64 as CPUs lacking one feature each
test-aarch64           the unit tests for aarch64 under qemu
aarch64-deps           qemu-user, the aarch64 cross gcc and Rust target
test-aarch64-suite     the integration and differential suites for aarch64 under qemu
test-s390x             the unit tests on big-endian s390x under qemu
s390x-deps             qemu-user, the s390x cross gcc and Rust target
test-musl              unit tests and the integration suite on musl (static), portable paths
cross-deps             cargo-zigbuild, zig and the Rust targets of check-cross
check-cross            build and link for FreeBSD, macOS, aarch64 Linux and musl (nothing run)
man                    regenerate man/*.1 (= generate)
completions            regenerate completions/ (= generate)
generate               regenerate the man pages and completions from the tools' definitions
bench                  compare with GNU 9.1, GNU 9.12, uutils, fcoreutils and busybox (benches/bench.py)
speed-table            run the yes, cat and wc suites and rewrite README's speed table (CPU, date, commit)
bench-peers            install the benchmark's peers at pinned versions (uutils, fcoreutils), and pv
mca                    cycles per 64 bytes of the hot loops on llvm-mca's AVX2 models (znver1-3, skylake, alderlake); mispredicts
clean                  cargo clean
packaging-deps         the packaging tools (root): debhelper, lintian, rpm, rpmlint, makepkg, ...
dist                   the source and vendored-crates tarballs in target/package
package-deb            build and check the .debs (lintian, contents, shellcheck)
package-rpm            build and check the RPM (rpmlint, contents)
package-arch           build and check the Arch package (makepkg as an unprivileged user)
check-freebsd-port     check the FreeBSD port's crate list, distinfo and pkg-plist
check-homebrew         check the Homebrew formula against a stand-in of its DSL
check-packaging        every packaging check above
check-reproducible     the .debs built twice, and cargo build --release from two paths, must be identical
check-system-package   rapidutils-coreutils in fresh Debian chroots of SUITES (bookworm trixie sid)
check-uninstall        make install, a package owning a directory it made, make uninstall: in fresh chroots (UNINSTALL_SUITES)
check-distro-build     Debian's own build in fresh trixie and sid chroots (offline, Debian's crates), lintian, the
                       tests with rustc 1.85, make install as a newcomer, the system swap with those .debs, cargo publish --dry-run
help                   this list
endef
export HELP
help:
	@printf '%s\n' "$$HELP"

# Without cargo, as root on Debian 13 or later: Debian's own (rustc 1.85 or newer); Debian 12's
# (1.63) is too old for the tools, so there the README's rustup way it is.
build:
	@command -v $(CARGO) >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || { \
	  apt-get update -qq >/dev/null 2>&1 || true; \
	  candidate=$$(apt-cache policy rustc 2>/dev/null | sed -n 's/^ *Candidate: *//p'); \
	  if [ -n "$$candidate" ] && dpkg --compare-versions "$$candidate" ge 1.85; then $(APT_INSTALL) cargo; \
	  else echo "no cargo here, and Debian's rustc ($${candidate:-none}) is older than 1.85: install Rust with rustup (README)" >&2; exit 1; fi; }
	$(CARGO) build --release --bins

# Everything the tests need (root): python3 (the corpora generator), xz (ci/gnu-tests.sh unpacks GNU's tests), strace (fault injection), GNU time (peak memory), the
# man-page and completion checkers (mandoc, man-db, zsh, fish, bash-completion), the locale
# sources (locales),
# and the GNU coreutils 9.12 oracle in /opt/gnu-oracle.
TEST_PROGRAMS := python3:python3 xz:xz-utils strace:strace valgrind:valgrind /usr/bin/time:time mandoc:mandoc man:man-db zsh:zsh fish:fish \
	/usr/share/bash-completion/bash_completion:bash-completion
TEST_LOCALES  := en_US.UTF-8 en_US.ISO-8859-1 fr_FR.UTF-8 fr_FR.ISO-8859-1 de_DE.UTF-8 ja_JP.EUC-JP ja_JP.UTF-8 \
	ko_KR.EUC-KR zh_TW.BIG5 \
	zh_CN.GB18030 ru_RU.KOI8-R ru_RU.UTF-8
test-deps:
	@missing=; for p in $(TEST_PROGRAMS); do command -v $${p%%:*} >/dev/null || [ -e $${p%%:*} ] || \
	  missing="$$missing $${p#*:}"; done; \
	if [ -n "$$missing" ]; then $(APT_INSTALL) $$missing; fi
	@# The locales the differential tests run in, compiled with localedef from the sources in
	@# the package 'locales' (the message catalogs come with coreutils and locales).
	@test -e /usr/share/i18n/charmaps/GB18030.gz -a -e /usr/share/i18n/locales/ja_JP \
	  || { $(APT_INSTALL) locales; }
	@have=$$(locale -a | tr A-Z a-z); for l in $(TEST_LOCALES); do src=$${l%%.*}; cs=$${l#*.}; \
	  norm=$$(echo "$$src.$$cs" | tr -d - | tr A-Z a-z); \
	  printf '%s\n' "$$have" | grep -qx "$$norm" || { echo "localedef $$l"; localedef -i $$src -f $$cs $$l || \
	    locale -a | tr A-Z a-z | grep -qx "$$norm" || exit 1; }; done
	@bash $(ORACLE_SH) >/dev/null
	@/opt/gnu-oracle/bin/yes --version | sed -n 1p

# The whole test suite: unit, differential (against GNU 9.12), shape and fault-injection tests,
# once with the zero-copy paths (then, alone, ci/pipe-max-size.sh: that system-wide limit raised
# for a moment) and once with the portable fallbacks only; then the unit tests (every kernel
# against its reference, NEON among them) built for aarch64 and run under qemu.
# ci/test-all.sh runs them in turn (each whatever the others gave; logs in target/test-logs), then
# lists what could not run here, each with its reason (a kernel this CPU lacks, ...: tests write
# them to $(SKIPS)), and ends with one line: N passed, N failed, N skipped (by design or not
# checked here).
SKIPS := $(CURDIR)/target/test-skips.txt
test: test-deps
	@CARGO="$(CARGO)" MAKE="$(MAKE)" bash ci/test-all.sh

# Longer than make test, what only load and many runs find (tests/stress.rs, not part of cargo
# test): files that shrink and grow while cat and wc read them, readers that close early, full
# disks (small tmpfs mounts: root), signals into writes to a full pipe; each round with its own
# options, SIMD kernel, locale and input way. The four cases run side by side (load).
# STRESS_ROUNDS rounds each; each case prints its seed, and RAPIDUTILS_STRESS_SEED=N repeats its rounds.
STRESS_ROUNDS ?= 100
stress: test-deps
	RAPIDUTILS_STRESS_ROUNDS=$(STRESS_ROUNDS) $(CARGO) test --release --test stress -- --nocapture --test-threads=4

# GNU's own tests for cat, wc and yes (tests/cat, tests/wc, misc/yes.sh, misc/write-errors.sh, ...)
# run against the release binaries the way GNU's `make check` runs them. The test scripts are GPL:
# ci/gnu-tests.sh fetches them from Debian's archive (the oracle's version when the archive has
# it, else the newest it has) into /var/cache/rapidutils-gnu-tests; none is in this repository.
test-gnu:
	$(CARGO) build --release --bins
	bash ci/gnu-tests.sh -q target/release

# The x86-64 kernels on CPU models this machine is not: qemu-x86_64 runs the glibc build and a
# static musl one as CPUs that lack one feature each of the AVX2 kernel's (LZCNT, BMI1, BMI2,
# POPCNT, AVX2, SSSE3); each must get the SSSE3 kernel (SSE2's without POPCNT or SSSE3) and print
# what the AVX2 kernel prints natively.
test-cpu-models: aarch64-deps
	@rustup target list --installed | grep -qx $(MUSL) || rustup target add $(MUSL)
	$(CARGO) build --release --bins
	$(CARGO) build --release --bins --target $(MUSL)
	bash ci/cpu-models.sh target/release target/$(MUSL)/release

# aarch64 (NEON kernels; macOS on Apple silicon and aarch64 Linux run them): the library's
# unit tests cross-compiled and run by qemu's user-mode emulator. test-aarch64-suite runs the
# integration and differential suites there too.
AARCH64 := aarch64-unknown-linux-gnu
AARCH64_ENV := CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
aarch64-deps:
	@command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null \
	  || { $(APT_INSTALL) \
	       qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross; }
	@rustup target list --installed | grep -qx $(AARCH64) || rustup target add $(AARCH64)

test-aarch64: aarch64-deps
	$(AARCH64_ENV) CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu" \
	  $(CARGO) test --release --target $(AARCH64) --lib

# The integration and differential suites on aarch64 binaries: the tools built for aarch64, which
# the kernel runs through qemu-aarch64 (ci/qemu-binfmt.sh registers it with binfmt_misc), tested
# by the native test program (RAPIDUTILS_BIN_DIR) against Debian's arm64 build of GNU 9.12, also
# under qemu (ci/gnu-oracle.sh with GNU_ORACLE_ARCH=arm64, in /opt/gnu-oracle-arm64). Skipped
# there, by name: the tests that count or inject system calls with strace (under qemu it sees the
# emulator's calls, not the program's), cat's that shrinks a mapped file (qemu does not hand the
# SIGBUS to the program's handler); the tests that see they run under qemu skip those parts
# themselves. Both kinds are listed at the end. The instruction counts per byte come from qemu
# there (a plugin, ci/qemu-insn.c, built here), not from callgrind.
AARCH64_SKIP := faults:: cat_shape::formatting_a_large_regular_file_reads_none_of_it \
	hostile::twenty_gib_sparse_file hostile::mapped_files_that_shrink_end_where_the_file_ends
QEMU_INSN := $(CURDIR)/target/qemu-insn.so
$(QEMU_INSN): ci/qemu-insn.c
	@mkdir -p target
	$(CC) -O2 -shared -fPIC -o $@ ci/qemu-insn.c
test-aarch64-suite: aarch64-deps $(QEMU_INSN)
	bash ci/qemu-binfmt.sh
	GNU_ORACLE_ARCH=arm64 bash $(ORACLE_SH) >/dev/null
	$(AARCH64_ENV) $(CARGO) build --release --bins --target $(AARCH64)
	rm -f $(SKIPS).aarch64
	RAPIDUTILS_BIN_DIR=$(CURDIR)/target/$(AARCH64)/release RAPIDUTILS_TEST_ARCH=aarch64 \
	RAPIDUTILS_QEMU_INSN=$(QEMU_INSN) RAPIDUTILS_TEST_SKIPS=$(SKIPS).aarch64 \
	GNU_ORACLE_BIN=/opt/gnu-oracle-arm64/bin $(CARGO) test --release --test tests -- $(AARCH64_SKIP:%=--skip %)
	@echo "Not run under qemu (skipped by name): $(AARCH64_SKIP)"
	@if [ -s $(SKIPS).aarch64 ]; then echo "Not run under qemu (the rest of those tests ran):"; \
	  sort -u $(SKIPS).aarch64; fi

# Big-endian (s390x): the library's unit tests under qemu, where the portable word-at-a-time
# kernels are the ones that run: byte order is where their tricks could go wrong.
S390X := s390x-unknown-linux-gnu
s390x-deps:
	@command -v qemu-s390x >/dev/null && command -v s390x-linux-gnu-gcc >/dev/null \
	  || { $(APT_INSTALL) \
	       qemu-user gcc-s390x-linux-gnu libc6-dev-s390x-cross; }
	@rustup target list --installed | grep -qx $(S390X) || rustup target add $(S390X)
test-s390x: s390x-deps
	CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc \
	CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER="qemu-s390x -L /usr/s390x-linux-gnu" \
	  $(CARGO) test --release --target $(S390X) --lib

# The portable paths on musl (static binaries): unit tests and the integration suite, but for the
# tests that compare what the C library decides with GNU built on glibc: strerror's texts (musl:
# "I/O error"), the C locale's high bytes (musl maps them to characters, so GNU's no-break-space
# rule sees other characters), the Unicode tables and the locales (musl has no single-byte or
# EUC locales). GNU built on musl would differ from GNU on glibc in the same places.
MUSL := x86_64-unknown-linux-musl
MUSL_SKIP := locale_diff:: cat_diff::errors_in_the_middle_keep_order_and_status \
	faults::eintr_and_eagain_on_every_data_call_lose_nothing faults::wc_byte_count_of_a_pipe_under_injected_faults \
	hostile::fifos_and_sockets hostile::wc_totals_that_overflow_are_reported_like_gnu \
	wc_diff::every_character_class_and_width_as_the_c_library_says wc_diff::every_code_point_counts_as_gnu_counts_it \
	wc_diff::every_corpus_counts_as_gnu_in_every_kernel wc_diff::every_option_combination_on_files_stdin_and_pipes \
	wc_diff::every_simd_kernel_counts_the_same wc_diff::large_files_counted_on_two_threads_as_on_one \
	wc_diff::other_multibyte_locales_go_through_mbrtowc_as_gnu wc_diff::widths_for_files_redirected_stdin_pipes_and_offsets \
	wc_diff::characters_across_gnus_reads_count_once
test-musl:
	@rustup target list --installed | grep -qx $(MUSL) || rustup target add $(MUSL)
	$(CARGO) test --release --target $(MUSL) --features portable -- $(MUSL_SKIP:%=--skip %)

# Linked binaries for every platform claimed, against each system's C library: FreeBSD and macOS
# by cargo-zigbuild (zig's copies of their C library interfaces: a symbol the system lacks fails
# the link), aarch64 Linux by Debian's cross gcc, x86-64 Linux on musl (static). Nothing is run.
ZIG_TARGETS := x86_64-unknown-freebsd aarch64-apple-darwin x86_64-apple-darwin
ZIG_PIP     := ziglang==0.17.1 cargo-zigbuild==0.24.1
cross-deps: aarch64-deps
	@command -v file >/dev/null || { $(APT_INSTALL) file; }
	@command -v cargo-zigbuild >/dev/null && python3 -m ziglang version >/dev/null 2>&1 || \
	  python3 -m pip install -q $(ZIG_PIP) 2>/dev/null || python3 -m pip install -q --break-system-packages $(ZIG_PIP)
	@for t in $(ZIG_TARGETS) $(MUSL); do rustup target list --installed | grep -qx $$t || rustup target add $$t; done
check-cross: cross-deps
	for t in $(ZIG_TARGETS); do $(CARGO) zigbuild --quiet --release --bins --target $$t || exit 1; done
	$(AARCH64_ENV) $(CARGO) build --quiet --release --bins --target $(AARCH64)
	$(CARGO) build --quiet --release --bins --target $(MUSL)
	@for t in $(ZIG_TARGETS) $(AARCH64) $(MUSL); do file -b target/$$t/release/rapidutils | cut -c1-72 | sed "s|^|$$t: |"; done

# The completion files name their command in known places (rapidutils-gen's completions.rs);
# these rewrite them for the installed name $(PROG_PREFIX)$$t.
SED_BASH = sed -e "s/^\(complete .*\) $$t\$$/\1 $(PROG_PREFIX)$$t/"
SED_ZSH  = sed -e "s/^\#compdef $$t\$$/\#compdef $(PROG_PREFIX)$$t/" -e "s/\"_$$t\"/\"_$(PROG_PREFIX)$$t\"/" \
               -e "s/^\(  compdef .*\) $$t\$$/\1 $(PROG_PREFIX)$$t/"
SED_FISH = sed -e "s/^complete -c $$t /complete -c $(PROG_PREFIX)$$t /"
D = $(DESTDIR)

COMPLETION_DIRS := $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR)
INSTALL_DIRS := $(TOOLDIR) $(MANDIR)/man1 \
	$(if $(filter links,$(INSTALL_MODE)),$(BINDIR) $(COMPLETION_DIRS)) \
	$(if $(filter yes,$(TOOL_COMPLETIONS)),$(COMPLETION_DIRS) $(BASHCOMPATDIR) $(FISHCONFDIR)) \
	$(if $(filter yes,$(RECORD_DIRS)),$(dir $(DIRLIST)))

install: $(if $(BINARIES),,build)
	@new=; for d in $(INSTALL_DIRS); do \
	  p=$${d%/}; while [ -n "$$p" ] && [ ! -d "$(D)$$p" ]; do new="$$new $$p"; p=$${p%/*}; done; \
	  install -d "$(D)$$d" || exit 1; \
	done; \
	if [ "$(RECORD_DIRS)" = yes ]; then \
	  { if [ -f "$(D)$(DIRLIST)" ]; then cat "$(D)$(DIRLIST)"; fi; for n in $$new; do echo "$$n"; done; } \
	    | sort -u > "$(D)$(DIRLIST).new" && mv "$(D)$(DIRLIST).new" "$(D)$(DIRLIST)"; \
	fi
ifeq ($(INSTALL_MODE),links)
	@install -m 755 $(RELEASE)/rapidutils "$(D)$(BINDIR)/rapidutils" && echo "installed $(BINDIR)/rapidutils"
	@# Relative links (portable sh, no GNU realpath): ../../../bin/rapidutils in the distro layout.
	@from="$(TOOLDIR)"; to="$(BINDIR)/rapidutils"; up=; \
	while [ "$${to#"$$from"/}" = "$$to" ]; do from=$${from%/*}; up="../$$up"; done; \
	for t in $(TOOLS); do ln -sfn "$$up$${to#"$$from"/}" "$(D)$(TOOLDIR)/$(PROG_PREFIX)$$t" || exit 1; \
	  echo "installed $(TOOLDIR)/$(PROG_PREFIX)$$t -> $$up$${to#"$$from"/}"; done
	@install -m 644 man/rapidutils.1 "$(D)$(MANDIR)/man1/rapidutils.1"
	@install -m 644 completions/bash/rapidutils "$(D)$(BASHCOMPDIR)/rapidutils"
	@install -m 644 completions/zsh/_rapidutils "$(D)$(ZSHCOMPDIR)/_rapidutils"
	@install -m 644 completions/fish/rapidutils.fish "$(D)$(FISHCOMPDIR)/rapidutils.fish"
	@echo "installed $(MANDIR)/man1/rapidutils.1 and rapidutils' bash, zsh and fish completions"
else
	@for t in $(TOOLS); do install -m 755 $(RELEASE)/$$t "$(D)$(TOOLDIR)/$(PROG_PREFIX)$$t" || exit 1; \
	  echo "installed $(TOOLDIR)/$(PROG_PREFIX)$$t"; done
endif
	@for t in $(TOOLS); do install -m 644 man/$$t.1 "$(D)$(MANDIR)/man1/$(TOOL_MAN_PREFIX)$$t.1" || exit 1; done
	@echo "installed the manual pages of $(TOOLS) in $(MANDIR)/man1"
ifeq ($(TOOL_COMPLETIONS),yes)
	@for t in $(TOOLS); do \
	  $(SED_BASH) completions/bash/$$t > "$(D)$(BASHCOMPDIR)/$(PROG_PREFIX)$$t" && \
	  $(SED_ZSH) completions/zsh/_$$t > "$(D)$(ZSHCOMPDIR)/_$(PROG_PREFIX)$$t" && \
	  $(SED_FISH) completions/fish/$$t.fish > "$(D)$(FISHCOMPDIR)/$(PROG_PREFIX)$$t.fish" && \
	  chmod 644 "$(D)$(BASHCOMPDIR)/$(PROG_PREFIX)$$t" "$(D)$(ZSHCOMPDIR)/_$(PROG_PREFIX)$$t" \
	    "$(D)$(FISHCOMPDIR)/$(PROG_PREFIX)$$t.fish" || exit 1; \
	done
	@echo "installed the tools' completions in $(BASHCOMPDIR), $(ZSHCOMPDIR) and $(FISHCOMPDIR)"
ifneq ($(BASHCOMPATDIR),)
	@{ echo '# Installed by rapidutils: loads its completions for $(PROG_PREFIX)cat and $(PROG_PREFIX)wc, which'; \
	  echo "# bash-completion binds to its generic _longopt before it would look for their files."; \
	  echo 'for _rapidutils_tool in $(PROG_PREFIX)cat $(PROG_PREFIX)wc; do'; \
	  echo '  if declare -F _comp_load >/dev/null; then _comp_load -- "$$_rapidutils_tool"'; \
	  echo '  elif declare -F __load_completion >/dev/null; then __load_completion "$$_rapidutils_tool"'; \
	  echo '  fi'; \
	  echo 'done'; \
	  echo 'unset _rapidutils_tool'; } > "$(D)$(BASHCOMPATDIR)/$(PROG_PREFIX)rapidutils"
	@chmod 644 "$(D)$(BASHCOMPATDIR)/$(PROG_PREFIX)rapidutils"
	@echo "installed $(BASHCOMPATDIR)/$(PROG_PREFIX)rapidutils (loads the completions of cat and wc in bash)"
endif
ifneq ($(FISHCONFDIR),)
	@{ echo '# Installed by rapidutils: fish finds its completions here only where XDG_DATA_DIRS names'; \
	  echo '# $(DATADIR) (a login shell may leave it unset). Searched as a vendor directory is: after'; \
	  echo "# the user's, before fish's own."; \
	  echo 'if not contains -- $(FISHCOMPDIR) $$fish_complete_path'; \
	  echo '    if set -l i (contains -i -- $$__fish_data_dir/completions $$fish_complete_path)'; \
	  echo '        set fish_complete_path $$fish_complete_path[1..(math $$i - 1)] $(FISHCOMPDIR) $$fish_complete_path[$$i..-1]'; \
	  echo '    else'; \
	  echo '        set -a fish_complete_path $(FISHCOMPDIR)'; \
	  echo '    end'; \
	  echo 'end'; \
	} > "$(D)$(FISHCONFDIR)/$(PROG_PREFIX)rapidutils.fish"
	@chmod 644 "$(D)$(FISHCONFDIR)/$(PROG_PREFIX)rapidutils.fish"
	@echo "installed $(FISHCONFDIR)/$(PROG_PREFIX)rapidutils.fish (fish finds the completions with XDG_DATA_DIRS unset)"
endif
endif

# Removes exactly the files `make install` with the same variables put there, the distro
# layout's own directory for the tools' names when it is left empty, and the directories listed
# in DIRLIST (those `make install` created) that are left empty, but for those a Debian package
# owns by then: `make install` may create /etc/fish/conf.d before fish is installed, and fish-common
# then owns it. Ownership is dpkg's (`dpkg -S DIR`), of the system, or with DESTDIR of the dpkg
# database in DESTDIR when there is one; without dpkg (or its database) no directory is owned.
OWNED_BY_A_PACKAGE = owned() { \
	  if [ -z "$(D)" ]; then command -v dpkg >/dev/null && dpkg -S "$$1" >/dev/null 2>&1; \
	  else [ -d "$(D)/var/lib/dpkg/info" ] && command -v dpkg >/dev/null && \
	    dpkg --admindir="$(D)/var/lib/dpkg" -S "$$1" >/dev/null 2>&1; fi; }
uninstall:
ifeq ($(INSTALL_MODE),links)
	@rm -f "$(D)$(BINDIR)/rapidutils" "$(D)$(MANDIR)/man1/rapidutils.1" "$(D)$(BASHCOMPDIR)/rapidutils" \
	  "$(D)$(ZSHCOMPDIR)/_rapidutils" "$(D)$(FISHCOMPDIR)/rapidutils.fish"
	@echo "removed $(BINDIR)/rapidutils, its manual page and its completions"
endif
	@for t in $(TOOLS); do rm -f "$(D)$(TOOLDIR)/$(PROG_PREFIX)$$t" "$(D)$(MANDIR)/man1/$(TOOL_MAN_PREFIX)$$t.1"; done
	@echo "removed $(TOOLS) from $(TOOLDIR) and their manual pages"
ifeq ($(TOOL_COMPLETIONS),yes)
	@for t in $(TOOLS); do rm -f "$(D)$(BASHCOMPDIR)/$(PROG_PREFIX)$$t" "$(D)$(ZSHCOMPDIR)/_$(PROG_PREFIX)$$t" \
	  "$(D)$(FISHCOMPDIR)/$(PROG_PREFIX)$$t.fish"; done
	@echo "removed the tools' completions"
ifneq ($(BASHCOMPATDIR),)
	@rm -f "$(D)$(BASHCOMPATDIR)/$(PROG_PREFIX)rapidutils" && echo "removed $(BASHCOMPATDIR)/$(PROG_PREFIX)rapidutils"
endif
ifneq ($(FISHCONFDIR),)
	@rm -f "$(D)$(FISHCONFDIR)/$(PROG_PREFIX)rapidutils.fish" && echo "removed $(FISHCONFDIR)/$(PROG_PREFIX)rapidutils.fish"
endif
endif
ifeq ($(LAYOUT),distro)
	@$(OWNED_BY_A_PACKAGE); for d in $(TOOLDIR:/=) $(patsubst %/,%,$(dir $(TOOLDIR:/=))); do \
	  owned "$$d" || rmdir "$(D)$$d" 2>/dev/null || true; done
endif
	@$(OWNED_BY_A_PACKAGE); if [ -f "$(D)$(DIRLIST)" ]; then dirs=$$(sort -r "$(D)$(DIRLIST)"); rm -f "$(D)$(DIRLIST)"; \
	  for d in $$dirs; do \
	    if owned "$$d"; then echo "kept $$d: a package owns it (dpkg -S)"; \
	    else rmdir "$(D)$$d" 2>/dev/null || true; fi; \
	  done; fi

# man/*.1 and completions/ are generated from the tools' clap Commands by rapidutils-gen (not
# shipped: `--features gen`, its own target dir) and committed; a test fails when they are stale.
man completions: generate
	@:
generate:
	$(CARGO) run --quiet --features gen --bin rapidutils-gen --target-dir target/gen -- .

# Packages (packaging/), built or checked here on Debian, as root: packaging/check.sh says how.
# Each writes into target/package/.
PACKAGING_DEBS := debhelper dh-cargo dpkg-dev fakeroot lintian rpm rpm2cpio cpio rpmlint pacman-package-manager makepkg \
	libarchive-tools ruby python3 xz-utils git shellcheck
packaging-deps:
	@missing=; for p in $(PACKAGING_DEBS); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || \
	  missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then $(APT_INSTALL) $$missing; fi
# The source tarball and the vendored crates tarball the packages build from.
dist:
	bash packaging/dist.sh
package-deb package-rpm package-arch: packaging-deps
	bash packaging/check.sh $(@:package-%=%)
check-freebsd-port check-homebrew: packaging-deps
	bash packaging/check.sh $(patsubst check-%,%,$(@:%-port=%))
# Every packaging check that runs here: FreeBSD port files, Homebrew formula, .deb, .rpm, Arch.
check-packaging: packaging-deps
	bash packaging/check.sh all
# Reproducible builds: the .debs built twice in two directories, and the binaries of cargo build
# --release in the work tree and in a copy elsewhere, must be identical (diffoscope, from Debian's
# diffoscope-minimal, shows where two .debs differ).
check-reproducible: packaging-deps
	@command -v diffoscope >/dev/null || \
	  { $(APT_INSTALL) diffoscope-minimal; }
	bash packaging/check.sh reproducible
# rapidutils-coreutils in a fresh Debian chroot of each release in SUITES: every maintainer-script
# path, failures and crashes, real package work, upgrades, purge (packaging/chroot-test.sh), with
# the .debs in target/package, built first when missing or older than what they are built from.
# Every release runs, whatever the others gave, CHROOT_JOBS at a time; then a table of cases by
# release.
SUITES ?= bookworm trixie sid
# How many releases are tested at once (each is mostly waiting for dpkg and the network).
CHROOT_JOBS ?= 3
DEB_VERSION = $(shell dpkg-parsechangelog -l packaging/debian/changelog -S Version 2>/dev/null)
# What the .debs are built from.
DEB_SOURCES := Cargo.toml Cargo.lock build.rs Makefile src packaging/debian man completions
check-system-package: packaging-deps
	@command -v mmdebstrap >/dev/null && command -v inotifywait >/dev/null || \
	  { $(APT_INSTALL) mmdebstrap inotify-tools; }
	@deb=target/package/rapidutils-coreutils_$(DEB_VERSION)_$$(dpkg --print-architecture).deb; \
	  if [ ! -e $$deb ] || [ -n "$$(find $(DEB_SOURCES) -newer $$deb -print -quit)" ]; then \
	    bash packaging/check.sh deb; fi
	bash packaging/chroot-test.sh --suites $(CHROOT_JOBS) $(SUITES)

# make install, then a package that comes to own a directory make install created (fish-common:
# /etc/fish/conf.d), then make uninstall, as root in a fresh Debian chroot of each of
# UNINSTALL_SUITES (packaging/uninstall-test.sh): the directory stays, the other ones go.
UNINSTALL_SUITES ?= bookworm trixie
check-uninstall: $(if $(BINARIES),,build)
	@command -v mmdebstrap >/dev/null || { $(APT_INSTALL) mmdebstrap; }
	BINARIES=$(RELEASE) bash packaging/uninstall-test.sh $(UNINSTALL_SUITES)

# Debian's own build of rapidutils, as its Rust team builds programs (packaging/distro-build.sh):
# in fresh chroots of DISTRO_SUITES, from Debian's rustc, cargo and librust-*-dev crates with no
# network, lintian clean; the unit tests and the integration suite with Debian 13's rustc 1.85;
# the README's make install in a fresh chroot; then rapidutils-coreutils' system swap with those
# .debs (packaging/chroot-test.sh) and cargo publish --dry-run.
DISTRO_SUITES ?= trixie sid
check-distro-build: packaging-deps
	@command -v mmdebstrap >/dev/null && command -v inotifywait >/dev/null || \
	  { $(APT_INSTALL) mmdebstrap inotify-tools; }
	bash packaging/distro-build.sh $(DISTRO_SUITES)
	DEBS=target/package/@SUITE@ bash packaging/chroot-test.sh --suites $(CHROOT_JOBS) $(DISTRO_SUITES)
	$(CARGO) publish --dry-run --locked

# The benchmark's peers besides GNU, at pinned versions: uutils' per-tool crates uu_yes, uu_cat
# and uu_wc (binaries yes, cat, wc) into /opt/uutils, and fcoreutils (107 binaries named
# fyes, fcat, fwc, ...: only those three are built) into /opt/fcoreutils. A peer whose version is
# already there (its root's .crates.toml says so) is skipped. The builds run at nice 19 on
# PEERS_JOBS jobs (the machine may be shared), quietly, into target/peers with a log in
# $(PEERS_LOG): with one job on a 2-vCPU AMD EPYC Zen 4 VM, 4.5 minutes in all (uutils' three
# 2.5, uucore built once for them; fcoreutils' three 2, fat LTO); 0.05 s when both are there.
UUTILS_VERSION     ?= 0.12.0
UUTILS_ROOT        ?= /opt/uutils
FCOREUTILS_VERSION ?= 0.22.0
FCOREUTILS_ROOT    ?= /opt/fcoreutils
PEERS_JOBS         ?= 1
PEERS_LOG          := target/bench-peers.log
PEERS_INSTALL       = nice -n 19 $(CARGO) install --locked --quiet -j $(PEERS_JOBS) --target-dir target/peers
bench-peers:
	@mkdir -p target
	@command -v pv >/dev/null || $(APT_INSTALL) pv
	@for t in $(TOOLS); do \
	  grep -qs '^"uu_'$$t' $(UUTILS_VERSION) ' $(UUTILS_ROOT)/.crates.toml && [ -x $(UUTILS_ROOT)/bin/$$t ] && continue; \
	  echo "installing uu_$$t $(UUTILS_VERSION) into $(UUTILS_ROOT) (log: $(PEERS_LOG))"; \
	  $(PEERS_INSTALL) --root $(UUTILS_ROOT) uu_$$t@$(UUTILS_VERSION) >>$(PEERS_LOG) 2>&1 \
	    || { tail -n 20 $(PEERS_LOG); exit 1; }; \
	done
	@have=yes; for t in $(TOOLS); do [ -x $(FCOREUTILS_ROOT)/bin/f$$t ] || have=; done; \
	if [ -z "$$have" ] || ! grep -qs '^"fcoreutils $(FCOREUTILS_VERSION) ' $(FCOREUTILS_ROOT)/.crates.toml; then \
	  echo "installing fcoreutils $(FCOREUTILS_VERSION) ($(TOOLS:%=f%)) into $(FCOREUTILS_ROOT) (log: $(PEERS_LOG))"; \
	  $(PEERS_INSTALL) --root $(FCOREUTILS_ROOT) fcoreutils@$(FCOREUTILS_VERSION) $(TOOLS:%=--bin f%) \
	    >>$(PEERS_LOG) 2>&1 || { tail -n 20 $(PEERS_LOG); exit 1; }; \
	fi
	@$(UUTILS_ROOT)/bin/wc --version | sed -n 1p
	@$(FCOREUTILS_ROOT)/bin/fwc --version | sed -n 1p

# Whole-command comparison with GNU 9.1, GNU 9.12, uutils, fcoreutils and busybox (the peers
# from bench-peers; busybox when it is on PATH).
bench: test-deps bench-peers
	python3 benches/bench.py

# README's speed table, rewritten from a run of the yes, cat and wc suites at the current head.
SPEED_ROUNDS ?= 5
speed-table: test-deps bench-peers
	python3 benches/bench.py --suite yes --suite cat --suite wc --rounds $(SPEED_ROUNDS) --update-readme

# Cycles per 64 bytes of the hot loops (cat -A/-v, wc -m's UTF-8 check, wc -l, wc -L) on CPU
# models this machine is not: the release build's own loops, found by callgrind's counts and
# modelled by llvm-mca (llvm-14) as the AVX2 cores znver1, znver2, znver3, skylake and alderlake
# (MCA_CPUS). MCA_BINS: more builds to put beside it (directories of their tools).
MCA_CPUS ?= znver1 znver2 znver3 skylake alderlake
MCA_BINS ?=
mca:
	@command -v llvm-mca-14 >/dev/null && command -v valgrind >/dev/null || \
	  { apt-get update -qq && apt-get install -y -qq --no-install-recommends llvm-14 valgrind; }
	$(CARGO) build --release --bins
	python3 benches/mca.py --bin target/release $(MCA_BINS:%=--bin %) $(MCA_CPUS:%=--cpu %)

clean:
	$(CARGO) clean
