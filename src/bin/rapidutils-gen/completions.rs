//! bash, zsh and fish completions written from the clap `Command`s: one file per tool name
//! (`cat`, `_cat`, `cat.fish`, ...) and one for the multi-call binary (`rapidutils TOOL ...`),
//! which carries every tool's function too so that it stands alone.
//!
//! Our commands are flat, declare `--help`/`--version` as ordinary options and take operands
//! that are files (or, for `yes`, free text), so the scripts are small templates: options
//! complete after `-`, `--opt=` values after `=` or in the next word (a list, or files),
//! operands as files unless the operand is text, nothing as an option after `--`.
//!
//! Installed names: the tool files name the command in exactly these places, which `make
//! install` rewrites for a `PROG_PREFIX`: bash's final `complete ... NAME` line, zsh's
//! `#compdef NAME`, `"_NAME"` and `compdef ... NAME`, fish's `complete -c NAME ` at each line start.

use clap::{Arg, Command, ValueHint};
use std::path::PathBuf;

/// What follows an option or stands as an operand.
enum Values {
    /// Nothing to complete (free text).
    Text,
    /// File names.
    Files,
    /// One of a fixed list.
    OneOf(Vec<String>),
}

/// One option as the completions see it.
struct Opt {
    short: Option<char>,
    long: Option<String>,
    /// The value's name and what completes it, for options that take one.
    value: Option<(String, Values)>,
    help: String,
    /// `--help` and `--version`: nothing else matters once they are given.
    standalone: bool,
}

/// One tool's command line, reduced to what completion needs.
struct Spec {
    name: String,
    about: String,
    options: Vec<Opt>,
    /// The operands' name and what completes them.
    operands: (String, Values),
}

impl Spec {
    fn of(cmd: &Command) -> Spec {
        let mut args: Vec<&Arg> = cmd.get_arguments().filter(|a| !a.is_positional()).collect();
        args.sort_by_key(|a| a.get_display_order());
        let options = args
            .into_iter()
            .map(|arg| Opt {
                short: arg.get_short(),
                long: arg.get_long().map(str::to_owned),
                value: arg.get_action().takes_values().then(|| (value_name(arg), values(arg))),
                help: one_line(arg.get_help().map(|h| h.to_string()).unwrap_or_default()),
                standalone: matches!(arg.get_id().as_str(), "help" | "version"),
            })
            .collect();
        let operands = cmd
            .get_arguments()
            .find(|a| a.is_positional())
            .map(|arg| (value_name(arg), values(arg)))
            .unwrap_or_else(|| ("ARG".into(), Values::Text));
        Spec {
            name: cmd.get_name().to_owned(),
            about: one_line(cmd.get_about().map(|a| a.to_string()).unwrap_or_default()),
            options,
            operands,
        }
    }

    /// Words that complete after `-`: each short and long name, `--name=` for a long option
    /// that takes a value.
    fn option_words(&self) -> Vec<String> {
        let mut words = Vec::new();
        for opt in &self.options {
            words.extend(opt.short.map(|c| format!("-{c}")));
            if let Some(long) = &opt.long {
                words.push(if opt.value.is_some() { format!("--{long}=") } else { format!("--{long}") });
            }
        }
        words
    }
}

fn value_name(arg: &Arg) -> String {
    arg.get_value_names().and_then(|n| n.first()).map(|n| n.to_string()).unwrap_or_else(|| arg.get_id().to_string())
}

fn values(arg: &Arg) -> Values {
    let possible: Vec<String> = arg.get_possible_values().iter().map(|v| v.get_name().to_owned()).collect();
    if !possible.is_empty() {
        return Values::OneOf(possible);
    }
    match arg.get_value_hint() {
        ValueHint::Other => Values::Text,
        _ => Values::Files,
    }
}

fn one_line(text: String) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every completion file, as (path under OUTDIR, contents). `multicall` has the tools as
/// subcommands.
pub fn all(multicall: &Command) -> Vec<(PathBuf, String)> {
    let tools: Vec<Spec> = multicall.get_subcommands().map(Spec::of).collect();
    let own = Spec::of(multicall);
    let mut files = Vec::new();
    for tool in &tools {
        files.push((PathBuf::from(format!("completions/bash/{}", tool.name)), bash_file(tool)));
        files.push((PathBuf::from(format!("completions/zsh/_{}", tool.name)), zsh_file(tool)));
        files.push((PathBuf::from(format!("completions/fish/{}.fish", tool.name)), fish_file(tool)));
    }
    files.push((PathBuf::from("completions/bash/rapidutils"), bash_multicall(&own, &tools)));
    files.push((PathBuf::from("completions/zsh/_rapidutils"), zsh_multicall(&own, &tools)));
    files.push((PathBuf::from("completions/fish/rapidutils.fish"), fish_multicall(&own, &tools)));
    files
}

fn header(comment: &str, shell: &str, name: &str) -> String {
    format!(
        "{comment} {shell} completion for {name} (rapidutils).\n\
         {comment} Generated by rapidutils-gen from the command-line definition; do not edit (make completions).\n"
    )
}

// ---- bash -------------------------------------------------------------------------------

/// `'word'` for bash and zsh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The function `_rapidutils_NAME`. It completes the current word of `COMP_WORDS`; the
/// tool's arguments start at index `${_rapidutils_first:-1}` (2 under `rapidutils TOOL`).
/// An empty reply lets `complete -o default` complete file names.
fn bash_function(spec: &Spec) -> String {
    let mut out = format!(
        "_rapidutils_{}()\n{{\n    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} i\n    \
         # bash splits '--opt=value' at '=' (COMP_WORDBREAKS).\n    \
         if [[ $cur == = ]]; then\n        cur=\n    elif [[ $prev == = ]]; then\n        \
         prev=${{COMP_WORDS[COMP_CWORD-2]}}\n    fi\n",
        spec.name
    );
    let valued: Vec<&Opt> = spec.options.iter().filter(|o| o.value.is_some()).collect();
    if !valued.is_empty() {
        out.push_str("    case $prev in\n");
        for opt in valued {
            let names: Vec<String> = opt
                .short
                .map(|c| format!("-{c}"))
                .into_iter()
                .chain(opt.long.as_ref().map(|l| format!("--{l}")))
                .collect();
            out.push_str(&format!("        {})\n", names.join("|")));
            out.push_str(&bash_values(&opt.value.as_ref().expect("valued").1, "            "));
            out.push_str("            return ;;\n");
        }
        out.push_str("    esac\n");
    }
    out.push_str(
        "    for (( i = ${_rapidutils_first:-1}; i < COMP_CWORD; i++ )); do\n        \
         [[ ${COMP_WORDS[i]} == -- ]] && break\n    done\n    \
         if [[ $cur == -* ]] && (( i == COMP_CWORD )); then\n",
    );
    out.push_str(&format!(
        "        COMPREPLY=($(compgen -W {} -- \"$cur\"))\n        \
         [[ ${{COMPREPLY[*]}} == *= ]] && compopt -o nospace 2>/dev/null\n        return\n    fi\n",
        sh_quote(&spec.option_words().join(" "))
    ));
    out.push_str(&bash_values(&spec.operands.1, "    "));
    out.push_str("}\n");
    out
}

/// What a function does to complete `values`, at `indent`.
fn bash_values(values: &Values, indent: &str) -> String {
    match values {
        Values::Files => format!("{indent}COMPREPLY=()\n"),
        Values::Text => format!("{indent}compopt +o default 2>/dev/null\n{indent}COMPREPLY=()\n"),
        Values::OneOf(list) => format!(
            "{indent}compopt +o default 2>/dev/null\n{indent}COMPREPLY=($(compgen -W {} -- \"$cur\"))\n",
            sh_quote(&list.join(" "))
        ),
    }
}

fn bash_file(spec: &Spec) -> String {
    format!(
        "{}\n{}\ncomplete -o default -F _rapidutils_{} {}\n",
        header("#", "bash", &spec.name),
        bash_function(spec),
        spec.name,
        spec.name
    )
}

fn bash_multicall(own: &Spec, tools: &[Spec]) -> String {
    let mut out = header("#", "bash", &own.name);
    for tool in tools {
        out.push('\n');
        out.push_str(&bash_function(tool));
    }
    let mut words: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    words.extend(own.option_words());
    out.push_str(&format!(
        "\n_rapidutils()\n{{\n    if (( COMP_CWORD == 1 )); then\n        \
         compopt +o default 2>/dev/null\n        \
         COMPREPLY=($(compgen -W {} -- \"${{COMP_WORDS[1]}}\"))\n        return\n    fi\n    \
         local _rapidutils_first=2\n    case ${{COMP_WORDS[1]}} in\n",
        sh_quote(&words.join(" "))
    ));
    for tool in tools {
        out.push_str(&format!("        {0}) _rapidutils_{0} ;;\n", tool.name));
    }
    out.push_str("        *) compopt +o default 2>/dev/null ;;\n    esac\n}\n");
    out.push_str("complete -o default -F _rapidutils rapidutils\n");
    out
}

// ---- zsh --------------------------------------------------------------------------------

/// `[description]` for an `_arguments` spec, inside single quotes.
fn zsh_description(help: &str) -> String {
    let escaped = help.replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]").replace('\'', "'\\''");
    format!("[{escaped}]")
}

/// `:NAME:action` for `_arguments`.
fn zsh_action(name: &str, values: &Values) -> String {
    match values {
        Values::Files => format!(":{name}:_files"),
        Values::Text => format!(":{name}: "),
        Values::OneOf(list) => format!(":{name}:({})", list.join(" ")),
    }
}

/// The function `_rapidutils_NAME`: one `_arguments` call (`-s`: clustered short options,
/// `-S`: `--` ends the options).
fn zsh_function(spec: &Spec) -> String {
    let mut lines = Vec::new();
    for opt in &spec.options {
        let desc = zsh_description(&opt.help);
        let tail = match &opt.value {
            Some((name, values)) => zsh_action(name, values),
            None => String::new(),
        };
        let long = opt.long.as_ref().map(|l| if opt.value.is_some() { format!("--{l}=") } else { format!("--{l}") });
        let spec_line = match (opt.short, long) {
            _ if opt.standalone => format!("'(- *){}{desc}{tail}'", long_of(opt)),
            (Some(s), Some(l)) => format!("'(-{s} {})'{{-{s},{l}}}'{desc}{tail}'", l.trim_end_matches('=')),
            (Some(s), None) => format!("'-{s}{desc}{tail}'"),
            (None, Some(l)) => format!("'{l}{desc}{tail}'"),
            (None, None) => continue,
        };
        lines.push(spec_line);
    }
    lines.push(format!("'*{}'", zsh_action(&spec.operands.0, &spec.operands.1)));
    format!("_rapidutils_{}() {{\n  _arguments -s -S \\\n    {}\n}}\n", spec.name, lines.join(" \\\n    "))
}

fn long_of(opt: &Opt) -> String {
    opt.long.as_ref().map(|l| format!("--{l}")).unwrap_or_default()
}

/// The autoload stanza: run the function when zsh autoloads the file as `_NAME`, register it
/// when the file is sourced.
fn zsh_stanza(file_function: &str, function: &str, command: &str) -> String {
    format!(
        "\nif [ \"$funcstack[1]\" = \"{file_function}\" ]; then\n  {function} \"$@\"\nelse\n  compdef {function} {command}\nfi\n"
    )
}

fn zsh_file(spec: &Spec) -> String {
    format!(
        "#compdef {0}\n{1}\n{2}{3}",
        spec.name,
        header("#", "zsh", &spec.name),
        zsh_function(spec),
        zsh_stanza(&format!("_{}", spec.name), &format!("_rapidutils_{}", spec.name), &spec.name)
    )
}

fn zsh_multicall(own: &Spec, tools: &[Spec]) -> String {
    let mut out = format!("#compdef {}\n{}", own.name, header("#", "zsh", &own.name));
    for tool in tools {
        out.push('\n');
        out.push_str(&zsh_function(tool));
    }
    out.push_str("\n_rapidutils() {\n  local curcontext=$curcontext state line\n  _arguments -C \\\n");
    for opt in &own.options {
        out.push_str(&format!("    '(- *){}{}' \\\n", long_of(opt), zsh_description(&opt.help)));
    }
    out.push_str(
        "    '1:tool:->tool' \\\n    '*::argument:->argument'\n  case $state in\n    tool)\n      local -a tools=(\n",
    );
    for tool in tools {
        out.push_str(&format!("        {}\n", sh_quote(&format!("{}:{}", tool.name, tool.about))));
    }
    out.push_str("      )\n      _describe -t tools tool tools ;;\n    argument)\n      case $words[1] in\n");
    for tool in tools {
        out.push_str(&format!("        {0}) _rapidutils_{0} ;;\n", tool.name));
    }
    out.push_str("      esac ;;\n  esac\n}\n");
    out.push_str(&zsh_stanza("_rapidutils", "_rapidutils", "rapidutils"));
    out
}

// ---- fish -------------------------------------------------------------------------------

fn fish_quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// `complete` lines for `spec`'s options; `prefix` is `complete -c NAME` plus any condition.
fn fish_lines(spec: &Spec, prefix: &str) -> String {
    let mut out = String::new();
    for opt in &spec.options {
        let mut line = prefix.to_owned();
        if let Some(s) = opt.short {
            line.push_str(&format!(" -s {s}"));
        }
        if let Some(l) = &opt.long {
            line.push_str(&format!(" -l {l}"));
        }
        match opt.value.as_ref().map(|v| &v.1) {
            Some(Values::Files) => line.push_str(" -r -F"),
            Some(Values::Text) => line.push_str(" -x"),
            Some(Values::OneOf(list)) => line.push_str(&format!(" -x -a {}", fish_quote(&list.join(" ")))),
            None => {}
        }
        line.push_str(&format!(" -d {}\n", fish_quote(&opt.help)));
        out.push_str(&line);
    }
    if let Values::Text = spec.operands.1 {
        out.push_str(&format!("{prefix} -f\n"));
    }
    out
}

fn fish_file(spec: &Spec) -> String {
    format!("{}{}", header("#", "fish", &spec.name), fish_lines(spec, &format!("complete -c {}", spec.name)))
}

fn fish_multicall(own: &Spec, tools: &[Spec]) -> String {
    let mut out = header("#", "fish", &own.name);
    // Before the tool name: the tools and the binary's own options, no files.
    let at_tool = "complete -c rapidutils -n __fish_use_subcommand";
    out.push_str(&format!("{at_tool} -f\n"));
    for tool in tools {
        out.push_str(&format!("{at_tool} -a {} -d {}\n", tool.name, fish_quote(&tool.about)));
    }
    for opt in &own.options {
        out.push_str(&format!(
            "{at_tool} -l {} -d {}\n",
            opt.long.as_deref().unwrap_or_default(),
            fish_quote(&opt.help)
        ));
    }
    for tool in tools {
        out.push_str(&fish_lines(
            tool,
            &format!("complete -c rapidutils -n '__fish_seen_subcommand_from {}'", tool.name),
        ));
    }
    out
}
