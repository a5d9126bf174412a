# Runs rapidutils.rb's install and test blocks against a stand-in of Homebrew's Formula DSL, in
# the source tree (the current directory): every file the formula installs must exist, `cargo
# install` is replaced by copying BINARY (the rapidutils binary already built), and the test
# block runs against the installed result in a temporary prefix.
#   ruby packaging/homebrew/check.rb BINARY
require "fileutils"
require "pathname"
require "tmpdir"

# Pathname#install and #install_symlink as Homebrew defines them (renames with a Hash, symlinks
# relative to the directory they are made in).
class Pathname
  def install(*sources)
    mkpath
    sources.each do |source|
      (source.is_a?(Hash) ? source : { source => File.basename(source) }).each do |from, to|
        raise "install: #{from} is not in the source tree" unless File.file?(from)

        FileUtils.cp(from, join(to))
      end
    end
  end

  def install_symlink(*sources)
    mkpath
    sources.each do |source|
      source.each { |from, to| File.symlink(Pathname(from).relative_path_from(self), join(to)) }
    end
  end
end

class Formula
  class << self
    attr_reader :test_block, :build_dependencies

    %i[desc homepage url sha256 license].each { |field| define_method(field) { |*| } }

    def depends_on(spec)
      (@build_dependencies ||= []) << spec
    end

    def test(&block)
      @test_block = block
    end
  end

  attr_reader :prefix, :testpath

  def initialize(prefix, testpath, binary)
    @prefix = Pathname(prefix)
    @testpath = Pathname(testpath)
    @binary = binary
  end

  def bin = prefix/"bin"
  def libexec = prefix/"libexec"
  def opt_libexec = libexec
  def share = prefix/"share"
  def man1 = share/"man/man1"
  def bash_completion = prefix/"etc/bash_completion.d"
  def zsh_completion = share/"zsh/site-functions"
  def fish_completion = share/"fish/vendor_completions.d"
  def std_cargo_args = ["--locked", "--root", prefix.to_s, "--path", "."]

  def system(*args)
    raise "unexpected command #{args.inspect}" unless args[0..1] == %w[cargo install] && args.include?("--locked")

    root = args[args.index("--root") + 1]
    raise "cargo install must name --bin rapidutils: #{args.inspect}" unless args.each_cons(2).include?(%w[--bin rapidutils])

    FileUtils.mkdir_p("#{root}/bin")
    FileUtils.cp(@binary, "#{root}/bin/rapidutils")
  end

  def shell_output(command, status = 0)
    output = Dir.chdir(testpath) { IO.popen(["/bin/sh", "-c", command], &:read) }
    raise "#{command}: exit #{$?.exitstatus}, wanted #{status}" unless $?.exitstatus == status

    output
  end

  def assert_equal(want, got)
    raise "wanted #{want.inspect}, got #{got.inspect}" unless want == got
  end

  def assert_match(pattern, text)
    raise "#{text.inspect} does not match #{pattern.inspect}" unless text.match?(pattern)
  end
end

binary = ARGV.fetch(0) { abort "usage: ruby check.rb BINARY" }
load File.join(__dir__, "rapidutils.rb")
abort "the formula has no test block" unless Rapidutils.test_block
abort "the formula must build with rust" unless Rapidutils.build_dependencies.include?("rust" => :build)
Dir.mktmpdir("rapidutils-brew") do |tmp|
  formula = Rapidutils.new("#{tmp}/prefix", "#{tmp}/test", binary)
  FileUtils.mkdir_p(formula.testpath)
  formula.install
  installed = Dir.glob("**/*", File::FNM_DOTMATCH, base: formula.prefix).reject { |p| File.directory?(formula.prefix/p) }.sort
  expected = %w[
    bin/rapidutils etc/bash_completion.d/rapidutils libexec/bin/cat libexec/bin/wc libexec/bin/yes
    share/fish/vendor_completions.d/rapidutils.fish share/man/man1/rapidutils-cat.1
    share/man/man1/rapidutils-wc.1 share/man/man1/rapidutils-yes.1 share/man/man1/rapidutils.1
    share/zsh/site-functions/_rapidutils
  ]
  abort "installed #{installed.inspect}, wanted #{expected.inspect}" unless installed == expected
  abort "caveats do not name libexec/bin" unless formula.caveats.include?("#{formula.libexec}/bin")
  formula.instance_eval(&Rapidutils.test_block)
  puts "homebrew: install put #{installed.size} files in place; the test block passed"
end
