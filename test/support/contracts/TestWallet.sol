// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A smart-contract wallet for the follower's internal-transfer tests: it pays out of its own
/// balance (as a Safe does), forwards what it is sent, and moves value in the ways a trace must
/// tell apart: a subcall that reverts, a subcall inside a frame that reverts, a contract created
/// with value, a delegatecall, and a self-destruct.
contract TestWallet {
    event Paid(address to, uint256 value);

    receive() external payable {}

    /// Pays `value` of the wallet's own balance to `to`: the transaction itself moves nothing.
    function pay(address payable to, uint256 value) external {
        (bool ok, ) = to.call{value: value}("");
        require(ok, "pay failed");
        emit Paid(to, value);
    }

    /// Forwards what it is sent, split between two recipients.
    function forward(address payable a, address payable b) external payable {
        uint256 half = msg.value / 2;
        (bool ok1, ) = a.call{value: half}("");
        (bool ok2, ) = b.call{value: msg.value - half}("");
        require(ok1 && ok2, "forward failed");
    }

    /// Tries to pay `to` through a frame that pays and then reverts; the failure is caught, so the
    /// transaction succeeds and the wallet keeps the value.
    function payInFailingFrame(address payable to, uint256 value) external {
        try this.payThenRevert(to, value) {} catch {}
    }

    function payThenRevert(address payable to, uint256 value) external {
        require(msg.sender == address(this), "self only");
        (bool ok, ) = to.call{value: value}("");
        require(ok, "pay failed");
        revert("always reverts");
    }

    /// Calls `to` with value and ignores its failure: a recipient that reverts receives nothing.
    function payIgnoringFailure(address payable to, uint256 value) external {
        (bool ok, ) = to.call{value: value}("");
        ok;
    }

    /// Creates a child contract holding `value` of the wallet's balance.
    function createChild(uint256 value) external returns (address) {
        return address(new Child{value: value}());
    }

    /// Runs `target`'s code in this wallet's context, with the value this call was sent.
    function delegate(address target, bytes calldata data) external payable {
        (bool ok, ) = target.delegatecall(data);
        require(ok, "delegate failed");
    }

    /// Calls itself `depth` times, then pays `to` from the innermost frame: a call tree as deep as
    /// the gas allows, whose trace nests far deeper than any other answer a node gives.
    function payDeep(uint256 depth, address payable to, uint256 value) external {
        if (depth == 0) {
            (bool ok, ) = to.call{value: value}("");
            require(ok, "pay failed");
            return;
        }
        this.payDeep(depth - 1, to, value);
    }

    /// Ends the wallet, sending its whole balance to `beneficiary`.
    function destroy(address payable beneficiary) external {
        selfdestruct(beneficiary);
    }
}

/// What TestWallet creates: it holds what it was created with.
contract Child {
    constructor() payable {}
}

/// Refuses every payment.
contract Refuser {
    receive() external payable {
        revert("no thanks");
    }
}
